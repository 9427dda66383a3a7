//! The native host's process tests, one binary: a module per concern, sharing `common`.

mod common;

mod abuse;
mod docs;
mod fsync;
mod full;
mod hang;
mod kill;
mod maintenance;
mod migrate;
mod network;
mod pgtls;
mod postgres;
mod read_named;
mod scope;
mod stdio;
