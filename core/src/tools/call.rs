//! A tool call carried out on a memory: its arguments validated against its schema, the
//! tool run, a change it plans logged and applied, the uses it noted counted, a read asked
//! `asOf` a time answered on the graph as it was then. What the protocol layer does with
//! the result (the reply, notifications) is its own.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::Value;

use super::output::{self, GraphText};
use super::validate::{Issue, Problem};
use super::{Answer, Catalog, Ctx, Plan, Run, Uses, args, limits};
use crate::index::Indexes;
use crate::log::Intent;
use crate::memory::{Error, LogOp, Pending, Store};
use crate::model::{Millis, Provenance};
use crate::time;

/// What a tool that works on the memory itself is given.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    /// Its arguments (checked against its schema).
    pub args: &'a Value,
    /// Who calls.
    pub by: Provenance<'a>,
    /// The host's time.
    pub now: Millis,
}

/// A finished call.
pub struct Done {
    /// The `CallToolResult` JSON.
    pub result: String,
    /// Whether the graph may have changed (subscribers hear of it).
    pub changed: bool,
}

impl Done {
    /// A result that changed nothing.
    pub fn unchanged(result: String) -> Done {
        Done {
            result,
            changed: false,
        }
    }

    /// A failure (`isError`) that changed nothing.
    pub fn failure(message: &str) -> Done {
        Done::unchanged(output::failure(message))
    }
}

/// What a call amounts to.
pub enum Called {
    /// Its result.
    Done(Done),
    /// A read's answer of entities and relations, to write (after
    /// [`output::GRAPH_RESULT_HEAD`]), which may be large.
    Graph(GraphText),
}

/// Calls tool `name` with `arguments` on `memory`, for `by` at the host's time `now`.
pub fn call(
    memory: &mut dyn Store,
    catalog: &Catalog,
    name: &str,
    arguments: &Value,
    by: Provenance<'_>,
    now: Millis,
) -> Called {
    let done = |d: Done| Called::Done(d);
    let Some((tool, issues)) = catalog.fitting(name, arguments) else {
        return done(Done::failure(&format!(
            "MCP error -32602: Tool {name} not found"
        )));
    };
    if let Some(message) = refusal(name, &issues) {
        return done(Done::failure(&message));
    }
    let run = tool.def.run;
    if matches!(run, Run::Read(_) | Run::Graph(_)) {
        match args::time_arg(arguments, "asOf") {
            Err(e) => return done(Done::failure(&e)),
            Ok(Some(at)) => return done(Done::unchanged(as_of(memory, run, arguments, at, by))),
            Ok(None) => {}
        }
    }
    let uses = Uses::default();
    let ctx = Ctx::of(&*memory, by, now, &uses);
    let planned: Result<Plan, String> = match run {
        Run::Read(f) => {
            let result = f(ctx, arguments);
            memory.note_uses(uses.into_groups(), now);
            return done(match result {
                Ok(text) => Done::unchanged(text),
                Err(e) => Done::failure(&e),
            });
        }
        Run::Graph(f) => {
            let answer = f(ctx, arguments);
            memory.note_uses(uses.into_groups(), now);
            return match answer {
                Ok(Answer::Text(text)) => done(Done::unchanged(text)),
                Ok(Answer::Graph(text)) => Called::Graph(text),
                Err(e) => done(Done::failure(&e)),
            };
        }
        Run::Memory { run, .. } => {
            return done(run(
                memory,
                Call {
                    args: arguments,
                    by,
                    now,
                },
            ));
        }
        Run::Write(f) => f(ctx, arguments),
    };
    match planned {
        Ok(plan) => done(commit(memory, plan, by, now, uses)),
        Err(e) => done(Done::failure(&e)),
    }
}

/// Logs and applies the change `plan` planned, and answers with its result; the uses the
/// planning noted count once it is logged. Subscribers hear of every call that may have
/// changed the graph (the reference notifies no-ops too): a refused append changed
/// nothing, a failed sync did.
pub fn commit(
    memory: &mut dyn Store,
    plan: Plan,
    by: Provenance<'_>,
    now: Millis,
    uses: Uses,
) -> Done {
    match memory.commit(plan.change, now, &by) {
        Ok(()) => {
            memory.note_uses(uses.into_groups(), now);
            Done {
                result: plan.result,
                changed: true,
            }
        }
        Err(e) => Done {
            changed: matches!(
                e,
                Error::Log {
                    op: LogOp::Sync,
                    ..
                }
            ),
            result: output::failure(&e.to_string()),
        },
    }
}

/// A read asked `asOf` a time: run on the graph as it was then (no use of today's graph).
fn as_of(
    memory: &mut dyn Store,
    run: Run,
    arguments: &Value,
    at: Millis,
    by: Provenance<'_>,
) -> String {
    let past = memory
        .journal(Intent::Read)
        .and_then(|mut journal| journal.as_of(at));
    let graph = match past {
        Ok(Ok(graph)) => graph,
        Ok(Err(start)) => {
            return output::failure(&format!(
                "asOf: the memory's history starts at {} (compaction keeps a horizon of history, 30 days by default); {} is earlier",
                time::iso(start),
                time::iso(at)
            ));
        }
        Err(e) => return output::failure(&e.to_string()),
    };
    let indexes = Indexes::default();
    // What the past's graph returns is not a use of the present's.
    let (uses, unlogged) = (Uses::default(), Pending::default());
    let ctx = Ctx {
        graph: &graph,
        indexes: &indexes,
        by,
        now: at,
        uses: &uses,
        unlogged: &unlogged,
    };
    let read = match run {
        Run::Read(f) => f(ctx, arguments),
        Run::Graph(f) => f(ctx, arguments).map(|answer| answer.into_text(&graph)),
        _ => Err(String::from("asOf: only reads can look at the past")),
    };
    read.unwrap_or_else(|e| output::failure(&e))
}

/// The failure text for a call with these issues, or `None` when it has none. Type issues
/// are reported all together in the reference's words; otherwise the first request limit
/// exceeded, else the first constraint broken.
fn refusal(name: &str, issues: &[Issue]) -> Option<String> {
    let types: Vec<String> = issues
        .iter()
        .filter(|i| i.is_type())
        .map(Issue::message_at)
        .collect();
    if !types.is_empty() {
        return Some(format!(
            "MCP error -32602: Input validation error: Invalid arguments for tool {name}: {}",
            types.join("\n")
        ));
    }
    let is_limit =
        |i: &&Issue| matches!(i.problem, Problem::TooLong { .. } | Problem::TooMany { .. });
    if let Some(limit) = issues.iter().find(is_limit) {
        return Some(format!(
            "Request limit exceeded in {name}: {}",
            limits::describe(limit)
        ));
    }
    issues.first().map(Issue::message_at)
}
