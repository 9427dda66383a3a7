// The mcp-memory demo page: a knowledge graph kept in IndexedDB by BrowserMemory, edited with
// forms and drawn with cytoscape.js. A large graph is never drawn whole: beyond WHOLE_GRAPH
// entities the page draws search hits, the selected entity's neighbourhood or the best
// connected entities, at most DRAW_LIMIT nodes. Bundled by scripts/demo.mjs.
//
// For tests: `window.demo` is `{ memory, cy, refresh }`; `body[data-ready]` is set after the
// first draw and `body[data-drawn]` to the number of nodes after each.

import cytoscape from 'cytoscape';
import { BrowserMemory } from '../lib/browser.js';

const WHOLE_GRAPH = 300; // the whole graph is drawn up to this many entities
const DRAW_LIMIT = 300; // never more nodes than this
const COSE_LIMIT = 150; // force-directed layout up to this many nodes, concentric beyond
const LIST_LIMIT = 200; // search hits listed
const BATCH = 500; // entities or relations per call when generating
// The engine, copied beside the bundle by scripts/demo.mjs.
const WASM = new URL('./mcp_memory_bg.wasm', import.meta.url);

const $ = (id) => document.getElementById(id);
/** A new element with these properties and children. */
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};
const number = (n) => n.toLocaleString('en');
// A force-directed layout for small drawings, rings by degree for larger ones: both fast.
const COSE = { name: 'cose', animate: false, randomize: false, numIter: 600, padding: 30 };
const CONCENTRIC = { name: 'concentric', animate: false, concentric: (n) => n.degree(), levelWidth: () => 2 };
const PALETTE = ['#2f6fdf', '#e0803a', '#3aa55d', '#9b59b6', '#d64b6a', '#1ea5a5', '#b8912a', '#6b7a90'];

const state = { memory: null, query: '', selected: null, counts: { entities: 0, relations: 0 } };

const cy = cytoscape({
  container: $('graph'),
  minZoom: 0.05,
  maxZoom: 2,
  style: [
    {
      selector: 'node',
      style: {
        'background-color': 'data(color)',
        label: 'data(id)',
        'font-size': 10,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        'min-zoomed-font-size': 7,
        width: 18,
        height: 18,
      },
    },
    {
      selector: 'edge',
      style: {
        width: 1.2,
        'line-color': '#b7bfca',
        'target-arrow-color': '#b7bfca',
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.8,
        'curve-style': 'bezier',
        label: 'data(label)',
        'font-size': 8,
        color: '#667085',
        'text-rotation': 'autorotate',
        'min-zoomed-font-size': 8,
      },
    },
    { selector: 'node.selected', style: { 'border-width': 3, 'border-color': '#1f2328', width: 24, height: 24 } },
  ],
});

window.demo = { memory: null, cy, refresh };

const typeColours = new Map();

/** A colour per entity type, in the order types are met. */
function colorOf(type) {
  if (!typeColours.has(type)) typeColours.set(type, PALETTE[typeColours.size % PALETTE.length]);
  return typeColours.get(type);
}

/** Shows the outcome of an action under the memory name (an Error in red). */
function say(text, error = false) {
  $('message').textContent = text;
  $('message').classList.toggle('error', error);
}

/** Runs a UI action, reporting its failure instead of throwing. */
async function act(action) {
  try {
    await action();
  } catch (e) {
    say(e?.message ?? String(e), true);
  }
}

/** Another tab changed the memory. */
const onChange = () => act(refresh);

/** Opens the memory `name` (closing the one open) and draws it. */
async function openMemory(name) {
  state.memory?.removeEventListener('change', onChange);
  await state.memory?.close();
  state.memory = null;
  state.memory = await BrowserMemory.open(name, { wasm: WASM });
  state.memory.addEventListener('change', onChange);
  window.demo.memory = state.memory;
  state.query = '';
  state.selected = null;
  $('search').value = '';
  $('results').replaceChildren();
  say(`Opened memory “${name}”.`);
  await refresh();
}

let refreshing = null;
let again = false;

/** Redraws the graph and the details from the memory; calls during a redraw coalesce into one more. */
function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      do {
        again = false;
        try {
          await redraw();
        } catch (e) {
          if (!again) throw e; // else the next round shows what is current
        }
      } while (again);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** Reads the memory and draws what `view` says, then the details of the selected entity. */
async function redraw() {
  const memory = state.memory;
  const graph = await memory.readGraph();
  state.counts = { entities: graph.entities.length, relations: graph.relations.length };
  $('status').textContent =
    `“${memory.name}”: ${number(state.counts.entities)} entities, ${number(state.counts.relations)} relations`;
  let selected = state.selected && (await memory.openNodes([state.selected]));
  if (selected && selected.entities.length === 0) {
    state.selected = null;
    selected = null;
  }
  const { entities, relations, note } = await view(graph, selected);
  $('note').textContent = note;
  await draw(entities, relations);
  showDetails(selected);
}

/** What to draw: `{ entities, relations, note }`. */
async function view(graph, selected) {
  const total = graph.entities.length;
  if (state.query) {
    const hits = await state.memory.searchNodes(state.query);
    listHits(hits.entities);
    const n = hits.entities.length;
    const drawn = hits.entities.slice(0, DRAW_LIMIT);
    return {
      entities: drawn,
      relations: hits.relations,
      note:
        `Search “${state.query}”: ${number(n)} ${n === 1 ? 'hit' : 'hits'}` +
        (n > DRAW_LIMIT ? `; drawing the first ${DRAW_LIMIT}.` : ', all drawn.'),
    };
  }
  if (total <= WHOLE_GRAPH) {
    const note = `The whole graph: ${number(total)} entities, ${number(graph.relations.length)} relations.`;
    return { ...graph, note };
  }
  if (selected) {
    const name = state.selected;
    const neighbours = new Set();
    for (const r of selected.relations) neighbours.add(r.from === name ? r.to : r.from);
    neighbours.delete(name);
    const names = [name, ...neighbours].slice(0, DRAW_LIMIT);
    const hood = await state.memory.openNodes(names);
    return {
      ...hood,
      note:
        `The graph has ${number(total)} entities, too many to draw: drawing “${name}” and ` +
        `${number(names.length - 1)} of its ${number(neighbours.size)} neighbours. ` +
        'Search or click a node to move on.',
    };
  }
  const degree = new Map();
  for (const r of graph.relations) {
    degree.set(r.from, (degree.get(r.from) ?? 0) + 1);
    degree.set(r.to, (degree.get(r.to) ?? 0) + 1);
  }
  const top = [...graph.entities]
    .sort((a, b) => (degree.get(b.name) ?? 0) - (degree.get(a.name) ?? 0))
    .slice(0, DRAW_LIMIT);
  return {
    entities: top,
    relations: graph.relations,
    note:
      `The graph has ${number(total)} entities, too many to draw: drawing the ${DRAW_LIMIT} best connected. ` +
      'Search, or click a node to see its neighbourhood.',
  };
}

/**
 * Draws these entities and the relations between them and lays them out; nodes drawn before
 * keep their place, and the same elements again are not laid out anew.
 */
async function draw(entities, relations) {
  const names = new Set(entities.map((e) => e.name));
  const edges = relations
    .filter((r) => names.has(r.from) && names.has(r.to))
    .map((r) => {
      const id = `${r.from}\u0000${r.relationType}\u0000${r.to}`;
      return { data: { id, source: r.from, target: r.to, label: r.relationType } };
    });
  const same =
    cy.nodes().length === names.size &&
    cy.edges().length === edges.length &&
    entities.every((e) => cy.getElementById(e.name).nonempty()) &&
    edges.every((e) => cy.getElementById(e.data.id).nonempty());
  if (!same) {
    const placed = new Map(cy.nodes().map((n) => [n.id(), { ...n.position() }]));
    const nodes = entities.map((e) => ({
      data: { id: e.name, color: colorOf(e.entityType) },
      position: placed.get(e.name) ?? { x: Math.random() * 400, y: Math.random() * 400 },
    }));
    cy.resize(); // the note above may have changed the container's height
    cy.batch(() => {
      cy.elements().remove();
      cy.add([...nodes, ...edges]);
    });
    const layout = cy.layout(names.size <= COSE_LIMIT ? COSE : CONCENTRIC);
    const stopped = layout.promiseOn('layoutstop');
    layout.run();
    await stopped;
  }
  cy.nodes('.selected').removeClass('selected');
  if (state.selected) cy.getElementById(state.selected).addClass('selected');
  document.body.dataset.drawn = String(cy.nodes().length);
  document.body.dataset.ready = '1';
}

/** Lists search hits; clicking one selects it. */
function listHits(entities) {
  const items = entities.slice(0, LIST_LIMIT).map((e) => {
    const li = el('li', {}, e.name, ' ', el('span', { className: 'type', textContent: e.entityType }));
    li.dataset.name = e.name;
    return li;
  });
  if (entities.length > LIST_LIMIT) {
    items.push(el('li', { className: 'more', textContent: `… and ${number(entities.length - LIST_LIMIT)} more` }));
  }
  if (entities.length === 0) items.push(el('li', { className: 'more', textContent: 'no hits' }));
  $('results').replaceChildren(...items);
}

/** Fills the details panel with the selected entity (`openNodes` of it), or a hint. */
function showDetails(selected) {
  const panel = $('entity');
  $('delete-entity').disabled = !selected;
  if (!selected) {
    panel.replaceChildren(el('p', { className: 'empty', textContent: 'Click a node or a search hit.' }));
    return;
  }
  const [entity] = selected.entities;
  const link = (name) => el('span', { className: 'link', textContent: name, onclick: () => select(name) });
  const observations = entity.observations.length
    ? el('ul', {}, ...entity.observations.map((o) => el('li', {}, o)))
    : el('p', { className: 'empty', textContent: 'no observations' });
  const relations = selected.relations.length
    ? el(
        'ul',
        {},
        ...selected.relations.slice(0, 100).map((r) => {
          const out = r.from === entity.name;
          return el('li', {}, out ? '→ ' : '← ', r.relationType, ' ', link(out ? r.to : r.from));
        }),
      )
    : el('p', { className: 'empty', textContent: 'no relations' });
  panel.replaceChildren(
    el('h3', { textContent: entity.name }),
    el('div', { className: 'type', textContent: entity.entityType }),
    el('h2', { textContent: `Observations (${entity.observations.length})` }),
    observations,
    el('h2', { textContent: `Relations (${selected.relations.length})` }),
    relations,
  );
}

/** Selects an entity: details, forms prefilled; a large graph redraws around it. */
function select(name) {
  state.selected = name;
  $('observation-entity').value = name;
  $('relation-from').value = name;
  return act(refresh);
}

/** Creates `count` sample entities with relations, in batches, reporting progress. */
async function generate(count) {
  const memory = state.memory;
  const types = ['person', 'project', 'company', 'city', 'topic'];
  const topics = ['astronomy', 'tea', 'rust', 'gardening', 'jazz', 'chess', 'sailing', 'databases'];
  const verbs = ['knows', 'works_on', 'related_to'];
  const first = state.counts.entities;
  const nameOf = (i) => `${types[i % types.length]} ${first + i}`;
  let entities = 0;
  for (let start = 0; start < count; start += BATCH) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const topic = topics[Math.floor(Math.random() * topics.length)];
      const observations = [`sample #${first + i}`, `interested in ${topic}`];
      batch.push({ name: nameOf(i), entityType: types[i % types.length], observations });
    }
    entities += (await memory.createEntities(batch)).length;
    say(`Generating: ${number(start + batch.length)} / ${number(count)} entities…`);
  }
  // A random tree (each entity linked to an earlier one) plus a few cross links.
  const relations = [];
  for (let i = 1; i < count; i++) {
    const from = nameOf(i);
    relations.push({ from, to: nameOf(Math.floor(Math.random() * i)), relationType: verbs[i % verbs.length] });
    const to = nameOf(Math.floor(Math.random() * count));
    if (i % 4 === 0) relations.push({ from, to, relationType: 'related_to' });
  }
  let linked = 0;
  for (let start = 0; start < relations.length; start += BATCH) {
    linked += (await memory.createRelations(relations.slice(start, start + BATCH))).length;
    say(`Generating: ${number(Math.min(relations.length, start + BATCH))} / ${number(relations.length)} relations…`);
  }
  say(`Generated ${number(entities)} entities and ${number(linked)} relations.`);
}

/** Offers `data` as a file download. */
function download(filename, data, type) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Handles a form's submit with `action` (the page never reloads). */
function onSubmit(id, action) {
  $(id).addEventListener('submit', (event) => {
    event.preventDefault();
    act(action);
  });
}

onSubmit('open-form', () => openMemory($('memory-name').value.trim()));

onSubmit('search-form', () => {
  state.query = $('search').value.trim();
  if (!state.query) $('results').replaceChildren();
  return refresh();
});

// A hit clicked: the graph leaves the hits for it (its neighbourhood, if the graph is large).
$('results').addEventListener('click', (event) => {
  const name = event.target.closest('li')?.dataset.name;
  if (name === undefined) return;
  state.query = '';
  select(name);
});

onSubmit('entity-form', async () => {
  const name = $('entity-name').value.trim();
  const observations = $('entity-observations').value.split('\n').map((o) => o.trim()).filter(Boolean);
  const entity = { name, entityType: $('entity-type').value.trim(), observations };
  const created = await state.memory.createEntities([entity]);
  say(created.length ? `Created “${name}”.` : `“${name}” already exists.`);
  if (created.length) $('entity-form').reset();
  await refresh();
});

onSubmit('relation-form', async () => {
  const [from, relationType, to] = ['relation-from', 'relation-type', 'relation-to'].map((id) => $(id).value.trim());
  const created = await state.memory.createRelations([{ from, to, relationType }]);
  say(created.length ? `Created ${from} → ${relationType} → ${to}.` : 'That relation already exists.');
  if (created.length) $('relation-form').reset();
  await refresh();
});

onSubmit('observation-form', async () => {
  const entityName = $('observation-entity').value.trim();
  const contents = [$('observation-text').value.trim()];
  const [result] = await state.memory.addObservations([{ entityName, contents }]);
  say(result.addedObservations.length ? `Added an observation to “${entityName}”.` : 'It was already there.');
  $('observation-text').value = '';
  await refresh();
});

onSubmit('generate-form', async () => {
  $('generate').disabled = true;
  try {
    await generate(Math.max(1, Number($('generate-count').value) || 0));
  } finally {
    $('generate').disabled = false;
  }
  await refresh();
});

$('delete-entity').addEventListener('click', () =>
  act(async () => {
    const name = state.selected;
    await state.memory.deleteEntities([name]);
    state.selected = null;
    say(`Deleted “${name}”.`);
    await refresh();
  }),
);

$('export-jsonl').addEventListener('click', () =>
  act(async () => download('memory.jsonl', await state.memory.exportJsonl(), 'application/jsonl')),
);

$('export-log').addEventListener('click', () =>
  act(async () => download('memory.mcpmem', await state.memory.exportLog(), 'application/octet-stream')),
);

$('import').addEventListener('change', (event) =>
  act(async () => {
    const [file] = event.target.files;
    if (!file) return;
    const summary = await state.memory.importFile(new Uint8Array(await file.arrayBuffer()));
    $('import-summary').textContent = `${file.name}: ${summary}`;
    event.target.value = '';
    await refresh();
  }),
);

cy.on('tap', 'node', (event) => select(event.target.id()));

act(() => openMemory($('memory-name').value.trim()));
