//! The methods: each request answered in its era (initialize, ping, discovery, tools,
//! resources, listening), its params checked first (`params`).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::jsonrpc::{REPLY_HEAD, Request, error, params_error, reply, reply_tail};
use super::{
    GRAPH_URI, INSTRUCTIONS, PROTOCOL_VERSIONS, Server, Unsent, apps, catalog, era, params,
};
use crate::json;
use crate::log::{Intent, Log};
use crate::model::Provenance;
use crate::tools::validate::Issue;
use crate::tools::{self, Called, output};

pub(super) const SUBSCRIBE_CAPS: &str =
    r#"{"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true}}"#;

impl<L: Log> Server<L> {
    /// Answers a request in its era: a modern one only once its envelope checks out, and
    /// with what modern results carry.
    pub(super) fn dispatch(&mut self, req: Request<'_>) -> Vec<String> {
        if !era::is_modern(req.method, req.params) {
            return self.answer(req);
        }
        match era::envelope(&req.id, req.params) {
            Err(refused) => vec![refused],
            Ok(envelope) => {
                let method = req.method;
                self.envelope = Some(envelope);
                let mut out = self.answer(req);
                self.envelope = None;
                if let Some(last) = out.last_mut() {
                    era::stamp(last, era::ttl_of(method));
                }
                out
            }
        }
    }

    /// The error for malformed params: -32602 in the modern era, and in the handshake era
    /// the reference's -32603 carrying zod-style issues.
    pub(super) fn invalid(&self, id: &str, issues: &[Issue]) -> String {
        let code = if self.envelope.is_some() {
            -32602
        } else {
            -32603
        };
        params_error(id, code, issues)
    }

    /// Answers a request.
    pub(super) fn answer(&mut self, req: Request<'_>) -> Vec<String> {
        let id = req.id.as_str();
        let modern = self.envelope.is_some();
        // The refusal of malformed params, for the methods that take some.
        let refused = |server: &Self| {
            let issues = params::issues(req.method, req.params);
            (!issues.is_empty()).then(|| vec![server.invalid(id, &issues)])
        };
        let one = |s: String| vec![s];
        match req.method {
            "server/discover" => one(reply(
                id,
                format!(
                    r#"{{"supportedVersions":{},"capabilities":{SUBSCRIBE_CAPS},"instructions":{},"_meta":{{"{}":{{"name":"mcp-memory","version":"{}"}}}}}}"#,
                    era::supported_json(),
                    json::compact(&format!("{INSTRUCTIONS}{}", self.discover_note())),
                    era::SERVER_INFO_KEY,
                    env!("CARGO_PKG_VERSION"),
                ),
            )),
            // Removed in the modern era (`subscriptions/listen` replaces subscribing).
            "ping" | "resources/subscribe" | "resources/unsubscribe" if modern => {
                one(error(id, -32601, "Method not found"))
            }
            "subscriptions/listen" if modern => {
                if let Some(refused) = refused(self) {
                    return refused;
                }
                one(self.listen(id, req.params))
            }
            "initialize" => {
                if let Some(refused) = refused(self) {
                    return refused;
                }
                if let (Some(client), Some(info)) = (
                    self.clients.get_mut(&self.session),
                    req.params
                        .and_then(|p| p.get("clientInfo"))
                        .and_then(Value::as_object),
                ) {
                    let text = |k| info.get(k).and_then(Value::as_str).unwrap_or_default();
                    client.name = text("name").into();
                    client.version = text("version").into();
                    client.apps = apps::declared(req.params.and_then(|p| p.get("capabilities")));
                    client.roots = req
                        .params
                        .and_then(|p| p.get("capabilities")?.get("roots"))
                        .is_some_and(Value::is_object);
                }
                let asked = params::text(req.params, "protocolVersion");
                let version = PROTOCOL_VERSIONS
                    .into_iter()
                    .find(|v| *v == asked)
                    .unwrap_or(PROTOCOL_VERSIONS[0]);
                one(reply(
                    id,
                    format!(
                        r#"{{"protocolVersion":"{version}","capabilities":{SUBSCRIBE_CAPS},"serverInfo":{{"name":"mcp-memory","version":"{}"}},"instructions":{}}}"#,
                        env!("CARGO_PKG_VERSION"),
                        json::compact(&format!("{INSTRUCTIONS}{}", self.scope_note()))
                    ),
                ))
            }
            "ping" => one(reply(id, "{}")),
            "tools/list" => one(reply(id, catalog(&self.catalog).list_result())),
            "tools/call" => {
                if let Some(refused) = refused(self) {
                    return refused;
                }
                let empty = Value::Object(Map::new());
                let args = req
                    .params
                    .and_then(|p| p.get("arguments"))
                    .unwrap_or(&empty);
                self.call_tool(id, params::text(req.params, "name"), args)
            }
            "resources/list" => {
                // The memory browser only for clients that can show it.
                let browser = if self.apps() {
                    format!(",{}", apps::listed())
                } else {
                    String::new()
                };
                one(reply(
                    id,
                    format!(
                        r#"{{"resources":[{{"uri":"{GRAPH_URI}","name":"knowledge-graph","title":"Knowledge Graph","description":"The full knowledge graph with all entities and relations","mimeType":"application/json"}}{browser}]}}"#
                    ),
                ))
            }
            "resources/templates/list" => one(reply(id, r#"{"resourceTemplates":[]}"#)),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                if let Some(refused) = refused(self) {
                    return refused;
                }
                self.resource(id, req.method, params::text(req.params, "uri"))
            }
            _ => one(error(id, -32601, "Method not found")),
        }
    }

    pub(super) fn resource(&mut self, id: &str, method: &str, uri: &str) -> Vec<String> {
        if method == "resources/read" && uri == apps::BROWSER_URI {
            return vec![reply(id, apps::read_result())];
        }
        let is_graph = uri == GRAPH_URI;
        let mut out = Vec::with_capacity(2);
        if method == "resources/read"
            && is_graph
            && let Err(reason) = self.catch_up_notifying(Intent::Read, &mut out)
        {
            out.push(error(id, -32603, &reason.to_string()));
            return out;
        }
        let answer = match method {
            "resources/subscribe" => {
                if is_graph {
                    self.subscribers.insert(self.session);
                }
                reply(id, "{}")
            }
            "resources/unsubscribe" => {
                if is_graph {
                    self.subscribers.remove(&self.session);
                }
                reply(id, "{}")
            }
            _ if !is_graph => error(
                id,
                -32602,
                &format!("MCP error -32602: Resource {uri} not found"),
            ),
            _ => match self.memory.unavailable() {
                Some(reason) => error(id, -32603, reason),
                None => {
                    self.unsent = Some(Unsent {
                        text: tools::reference::query::read_graph_text(self.memory.graph()),
                        tail: format!("\"}}]}}{}", reply_tail(id)),
                    });
                    format!(
                        r#"{REPLY_HEAD}{{"contents":[{{"uri":"{GRAPH_URI}","mimeType":"application/json","text":""#
                    )
                }
            },
        };
        out.push(answer);
        out
    }

    pub(super) fn call_tool(&mut self, id: &str, name: &str, args: &Value) -> Vec<String> {
        let mut out = Vec::with_capacity(2);
        // Uses noted by earlier calls are logged by the first call a second after the
        // oldest of them (a read then takes the writer's turn for it).
        let log_uses = self.memory.uses_due(self.now);
        let intent = if log_uses || catalog(&self.catalog).mutates(name) {
            Intent::Write
        } else {
            Intent::Read
        };
        if let Err(reason) = self.catch_up_notifying(intent, &mut out) {
            out.push(reply(id, output::failure(&reason.to_string())));
            return out;
        }
        if let Some(reason) = self.memory.unavailable() {
            out.push(reply(id, output::failure(reason)));
            return out;
        }
        if log_uses {
            // Not a change the caller asked for: one the log refuses stays noted.
            let _ = self.memory.log_uses();
        }
        let client = &self.clients[&self.session];
        // A modern request names its client itself.
        let (client_name, version) = match &self.envelope {
            Some(envelope) => (&envelope.client, &envelope.client_version),
            None => (&client.name, &client.version),
        };
        let by = Provenance {
            client: client_name,
            version,
            session: &client.id,
            actor: self.actor.as_deref(),
        };
        match tools::call::call(
            &mut self.memory,
            catalog(&self.catalog),
            name,
            args,
            by,
            self.now,
        ) {
            Called::Graph(text) => {
                self.unsent = Some(Unsent {
                    text,
                    tail: reply_tail(id),
                });
                out.push(format!("{REPLY_HEAD}{}", output::GRAPH_RESULT_HEAD));
            }
            Called::Done(done) => {
                if done.changed {
                    self.graph_changed(&mut out);
                }
                out.push(reply(id, done.result));
            }
        }
        out
    }
}
