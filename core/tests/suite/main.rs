//! The core's integration tests, one binary (one link for all): a module per concern,
//! sharing `common`.

mod common;

mod analytics;
mod apps;
mod archive;
mod checkpoint;
mod compression;
mod constraints;
mod crash;
mod embed;
mod eras;
mod filelog;
mod fixtures;
mod fuzz_regressions;
mod graph_tools;
mod hierarchy;
mod history;
mod hygiene;
mod io;
mod layers;
mod limits;
mod memory_mcp;
mod memory_mcp_file;
mod memory_mcp_nine;
mod merge;
mod metadata;
mod profiles;
mod py_hygiene;
mod py_migrate;
mod py_salience;
mod py_shapes;
mod replay;
mod saved_searches;
mod search;
mod search_ts;
mod semantic;
mod shared;
mod sidefiles;
mod tag_aliases;
mod tag_tools;
mod tools;
mod torn;
mod verify;
mod view;
mod writes;
