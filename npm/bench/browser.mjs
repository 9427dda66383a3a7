// Benchmark of the browser memory (lib/browser.js) in headless Chromium, through the test
// harness page on a fresh profile: open + replay of a 10K-entity memory from IndexedDB, the
// acknowledged add_observations (relaxed and strict durability), search, read and open at
// 10K. Times are taken inside the page with performance.now(), so Playwright's round-trips
// are not counted. Not a test: it prints the times beside their targets and asserts nothing.
//
//   npm run bench:browser        (node bench/browser.mjs)

import { harness, launch } from '../test/chromium.mjs';

const ENTITIES = 10_000;
const BATCH = 1000;
const OPEN_RUNS = 5;
const ADD_CALLS = 200;
const SEARCH_CALLS = 50;
const READ_CALLS = 10;
const OPEN_NODES_CALLS = 50;
/** In exactly one entity's observations. */
const RARE = 'zanzibarite';
/** In about one entity in seven. */
const BROAD = 'billing';

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

/**
 * In the page: builds the memory `name` (ENTITIES entities with 2-3 observations of
 * deterministic word soup, 3 relations each) in batches of `batch`, then closes it.
 */
async function build({ name, entities, batch, rare }) {
  let seed = 42;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const firsts = ['Alice', 'Bruno', 'Chen', 'Dana', 'Emeka', 'Farah', 'Goran', 'Hana', 'Ivan', 'Jonas', 'Keiko', 'Lucia', 'Mateo', 'Nadia', 'Omar', 'Priya'];
  const lasts = ['Almeida', 'Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Haddad', 'Ito', 'Kowalski', 'Laurent', 'Moreau', 'Novak', 'Okafor', 'Petrov', 'Rossi'];
  const types = ['person', 'project', 'organization', 'meeting', 'document'];
  const cities = ['Lisbon', 'Nairobi', 'Osaka', 'Montreal', 'Tallinn', 'Bogota', 'Perth', 'Krakow', 'Seoul', 'Accra'];
  const topics = ['billing', 'search ranking', 'onboarding', 'the mobile app', 'data retention', 'the API gateway', 'accessibility', 'pricing'];
  const langs = ['Rust', 'TypeScript', 'Go', 'Python', 'Kotlin'];
  const observation = () =>
    pick([
      () => `Works on ${pick(topics)} with the ${pick(langs)} team since ${2015 + Math.floor(random() * 10)}`,
      () => `Prefers written updates over meetings and answers within a day`,
      () => `Was based in ${pick(cities)} before moving to the platform group`,
      () => `Reviewed the ${pick(topics)} design document and asked for load tests`,
      () => `Mentioned that ${pick(topics)} deadlines slipped twice last quarter`,
      () => `Owns the ${pick(langs)} client library and its release notes`,
    ])();
  const names = Array.from({ length: entities }, (_, i) => `${pick(firsts)} ${pick(lasts)} ${i}`);
  const memory = await window.mcp.BrowserMemory.open(name);
  const started = performance.now();
  let observations = 0;
  for (let at = 0; at < entities; at += batch) {
    const chunk = names.slice(at, at + batch).map((entityName, k) => {
      const obs = Array.from({ length: 2 + Math.floor(random() * 2) }, observation);
      if (at + k === Math.floor(entities / 2)) obs.push(`Keeps the spare office key in a ${rare} box`);
      observations += obs.length;
      return { name: entityName, entityType: pick(types), observations: obs };
    });
    await memory.createEntities(chunk);
  }
  const verbs = ['knows', 'works_with', 'reports_to'];
  const relations = names.flatMap((from, i) =>
    verbs.map((relationType, k) => ({ from, to: names[(i * 7 + k * 1013 + 1) % entities], relationType })),
  );
  let created = 0;
  for (let at = 0; at < relations.length; at += batch) {
    created += (await memory.createRelations(relations.slice(at, at + batch))).length;
  }
  const ms = performance.now() - started;
  memory.close();
  return { observations, relations: created, ms, names: names.filter((_, i) => i % 2000 === 3) };
}

/** In the page: the first open of the memory (engine load included), then one with the engine loaded. */
async function openTwice(name) {
  const t0 = performance.now();
  const first = await window.mcp.BrowserMemory.open(name);
  const t1 = performance.now();
  first.close();
  const t2 = performance.now();
  const again = await window.mcp.BrowserMemory.open(name);
  const t3 = performance.now();
  again.close();
  return { first: t1 - t0, loaded: t3 - t2 };
}

/** In the page: `calls` add_observations of one observation each, with `durability`. */
async function addObservations({ name, durability, calls, entityName }) {
  const memory = await window.mcp.BrowserMemory.open(name, { durability });
  const times = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await memory.addObservations([{ entityName, contents: [`${durability} follow-up note ${i}`] }]);
    times.push(performance.now() - t);
  }
  memory.close();
  return times;
}

/** In the page: times of the read-only calls at 10K, and the result sizes. */
async function reads({ name, rare, broad, searches, readCalls, openCalls, openNames }) {
  const memory = await window.mcp.BrowserMemory.open(name);
  const time = async (calls, f) => {
    const times = [];
    let result;
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      result = await f();
      times.push(performance.now() - t);
    }
    return { times, entities: result.entities.length };
  };
  const out = {
    rare: await time(searches, () => memory.searchNodes(rare)),
    broad: await time(searches, () => memory.searchNodes(broad)),
    read: await time(readCalls, () => memory.readGraph()),
    open: await time(openCalls, () => memory.openNodes(openNames)),
  };
  memory.close();
  return out;
}

const browser = await launch();
try {
  const page = await harness(browser);
  const name = 'bench';
  const built = await page.evaluate(build, { name, entities: ENTITIES, batch: BATCH, rare: RARE });

  // Cold opens: a reload between runs, so each page loads the engine and reads IndexedDB anew.
  const opens = [];
  for (let i = 0; i < OPEN_RUNS; i++) {
    await page.reload();
    await page.waitForFunction(() => window.mcp !== undefined);
    opens.push(await page.evaluate(openTwice, name));
  }

  const entityName = built.names[0];
  const relaxed = await page.evaluate(addObservations, { name, durability: 'relaxed', calls: ADD_CALLS, entityName });
  const strict = await page.evaluate(addObservations, { name, durability: 'strict', calls: ADD_CALLS, entityName });
  const r = await page.evaluate(reads, {
    name,
    rare: RARE,
    broad: BROAD,
    searches: SEARCH_CALLS,
    readCalls: READ_CALLS,
    openCalls: OPEN_NODES_CALLS,
    openNames: built.names.slice(0, 5),
  });

  const rows = [
    [`open+replay 10K, first (engine load incl.)`, opens.map((o) => o.first), ''],
    [`open+replay 10K, engine loaded`, opens.map((o) => o.loaded), '< 300'],
    [`add_observations ack, relaxed`, relaxed, '< 5 (median)'],
    [`add_observations ack, strict (default)`, strict, '< 5 (median)'],
    [`searchNodes rare (${r.rare.entities} hit)`, r.rare.times, '< 2'],
    [`searchNodes broad (${r.broad.entities} hits)`, r.broad.times, '< 2'],
    [`readGraph (${r.read.entities} entities)`, r.read.times, ''],
    [`openNodes of 5 names`, r.open.times, ''],
  ];
  const version = browser.context.browser()?.version() ?? 'unknown';
  console.log(
    `Chromium ${version}, ${ENTITIES} entities, ${built.observations} observations, ` +
      `${built.relations} relations (built in ${(built.ms / 1000).toFixed(1)} s, batches of ${BATCH})`,
  );
  const line = (cells) => cells.map((c, i) => (i ? String(c).padStart(i === 4 ? 14 : 9) : c.padEnd(44))).join(' ');
  console.log(line(['operation (ms)', 'runs', 'median', 'p95', 'target']));
  for (const [label, times, target] of rows) {
    console.log(line([label, times.length, median(times).toFixed(2), quantile(times, 0.95).toFixed(2), target]));
  }
} finally {
  await browser.close();
}
