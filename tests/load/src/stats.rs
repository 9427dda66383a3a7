//! Per-phase statistics: latency percentiles, throughput, reply sizes.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The nearest-rank percentile `p` (0..=100) of ascending `sorted` values: the smallest value
/// with at least p% of the values at or below it. `None` when there are no values.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// The median of integers (the lower middle one for an even count); 0 when empty.
pub fn median(values: &[u64]) -> u64 {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied().unwrap_or(0)
}

/// `x` with 3 significant digits (whole numbers from 100 up), e.g. `0.0834`, `1.23`, `456`.
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let magnitude = x.abs().log10().floor() as i32;
    if magnitude >= 2 {
        return format!("{x:.0}");
    }
    let decimals = (2 - magnitude) as usize;
    format!("{x:.decimals$}")
}

/// Latencies and reply sizes of one phase, as they are measured.
pub struct Recorder {
    started: Instant,
    latencies_ms: Vec<f64>,
    reply_bytes: Vec<u64>,
    items: u64,
}

impl Recorder {
    /// Starts the phase's wall clock.
    pub fn start() -> Self {
        Recorder {
            started: Instant::now(),
            latencies_ms: Vec::new(),
            reply_bytes: Vec::new(),
            items: 0,
        }
    }

    /// One call: its round-trip time, its reply's size and how many items it carried.
    pub fn record(&mut self, latency: Duration, reply_bytes: usize, items: usize) {
        self.latencies_ms.push(latency.as_secs_f64() * 1000.0);
        self.reply_bytes.push(reply_bytes as u64);
        self.items += items as u64;
    }

    /// The phase's summary.
    pub fn finish(self) -> Summary {
        let wall_s = self.started.elapsed().as_secs_f64();
        let mut sorted = self.latencies_ms;
        sorted.sort_by(f64::total_cmp);
        let total_ms: f64 = sorted.iter().sum();
        let count = sorted.len();
        Summary {
            count,
            p50_ms: percentile(&sorted, 50.0),
            p95_ms: percentile(&sorted, 95.0),
            p99_ms: percentile(&sorted, 99.0),
            mean_ms: (count > 0).then(|| total_ms / count as f64),
            min_ms: sorted.first().copied(),
            max_ms: sorted.last().copied(),
            busy_s: total_ms / 1000.0,
            wall_s,
            items: self.items,
            reply_bytes_median: median(&self.reply_bytes),
        }
    }
}

/// What one phase measured.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Calls made.
    pub count: usize,
    /// Median round trip.
    pub p50_ms: Option<f64>,
    /// 95th percentile round trip.
    pub p95_ms: Option<f64>,
    /// 99th percentile round trip.
    pub p99_ms: Option<f64>,
    /// Mean round trip.
    pub mean_ms: Option<f64>,
    /// Fastest round trip.
    pub min_ms: Option<f64>,
    /// Slowest round trip.
    pub max_ms: Option<f64>,
    /// Sum of the round trips.
    pub busy_s: f64,
    /// Wall time of the phase, client work included.
    pub wall_s: f64,
    /// Items carried (entities or relations for the bulk phases, else calls).
    pub items: u64,
    /// Median reply size in bytes.
    pub reply_bytes_median: u64,
}

impl Summary {
    /// Items per second of round-trip time (the server's throughput, client work excluded).
    pub fn items_per_s(&self) -> Option<f64> {
        (self.busy_s > 0.0).then(|| self.items as f64 / self.busy_s)
    }

    /// All numbers, for the JSON report.
    pub fn to_json(&self) -> Value {
        json!({
            "count": self.count,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
            "p99_ms": self.p99_ms,
            "mean_ms": self.mean_ms,
            "min_ms": self.min_ms,
            "max_ms": self.max_ms,
            "busy_s": self.busy_s,
            "wall_s": self.wall_s,
            "items": self.items,
            "items_per_s": self.items_per_s(),
            "reply_bytes_median": self.reply_bytes_median,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 95.0), Some(95.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        let few = [1.0, 2.0, 10.0];
        assert_eq!(percentile(&few, 50.0), Some(2.0));
        assert_eq!(percentile(&few, 95.0), Some(10.0));
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn recorder_summarizes() {
        let mut r = Recorder::start();
        for ms in [3u64, 1, 2, 4] {
            r.record(Duration::from_millis(ms), ms as usize * 10, 100);
        }
        let s = r.finish();
        assert_eq!(s.count, 4);
        assert_eq!(s.p50_ms, Some(2.0));
        assert_eq!(s.p99_ms, Some(4.0));
        assert_eq!(s.mean_ms, Some(2.5));
        assert_eq!(s.reply_bytes_median, 20);
        let ips = s.items_per_s().unwrap_or_default();
        assert!((ips - 40_000.0).abs() < 1.0, "{ips}");
    }

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(0.083_44), "0.0834");
        assert_eq!(sig3(1.234_5), "1.23");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(123.45), "123");
        assert_eq!(sig3(98_765.4), "98765");
        assert_eq!(sig3(0.0), "0");
    }
}
