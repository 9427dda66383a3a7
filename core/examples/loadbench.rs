//! Scratch: where opening a log's time goes (not committed).
use mcp_memory_core::frame;
use mcp_memory_core::graph::Graph;
use mcp_memory_core::record::{Checkpoint, is_checkpoint};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).unwrap();
    let reps: usize = std::env::args().nth(2).map_or(5, |s| s.parse().unwrap());
    let bytes = std::fs::read(&path).unwrap();
    for _ in 0..reps {
        let t = Instant::now();
        let scan = frame::scan(&bytes).unwrap();
        let t_scan = t.elapsed();
        let last = scan.records.iter().rposition(|r| is_checkpoint(r)).unwrap();
        let t = Instant::now();
        let c = Checkpoint::decode(scan.records[last]).unwrap();
        let t_dec = t.elapsed();
        let t = Instant::now();
        let mut g = Graph::from_checkpoint(&c);
        let t_build = t.elapsed();
        let t = Instant::now();
        for (i, r) in scan.records.iter().enumerate().skip(last + 1) {
            g.apply_entry(i, r).unwrap();
        }
        let t_tail = t.elapsed();
        let tail: usize = scan.records[last + 1..].iter().map(|r| r.len()).sum();
        println!(
            "scan {:?} decode {:?} build {:?} tail({} recs, {} B) {:?}; ckpt {} B, {} strings",
            t_scan,
            t_dec,
            t_build,
            scan.records.len() - last - 1,
            tail,
            t_tail,
            scan.records[last].len(),
            c.strings.len()
        );
        std::hint::black_box(&g);
        drop(c);
    }
}
