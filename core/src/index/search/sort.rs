//! Small sorts. Every use of `slice::sort*` with a new element type or comparator is
//! another copy of the standard library's sort code in the WebAssembly build (10–20 KB
//! each); these are a few hundred bytes, and as fast for what search sorts: `u64` keys
//! (radix sort) and the best few of many (a bounded heap). Two sorts of a reranked pool by
//! score (`run`'s final order, `rerank`'s order of the boosted) still use `sort_by`: they
//! compare floats with `total_cmp`, which the bit keys here would not match for `-0.0`.

use alloc::vec;
use alloc::vec::Vec;

/// Insertion sort by `less`: for short or nearly sorted slices.
pub(crate) fn insertion<T: Copy>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && less(&x, &v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Sorts by a `u64` key, ascending; equal keys keep their order (a byte-wise LSD radix
/// sort, skipping bytes that are the same in every key; insertion sort when short).
pub(crate) fn by_u64<T: Copy>(v: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    if v.len() <= 32 {
        insertion(v, |a, b| key(a) < key(b));
        return;
    }
    let mut counts = vec![[0u32; 256]; 8];
    for x in v.iter() {
        let k = key(x);
        for (byte, count) in counts.iter_mut().enumerate() {
            count[(k >> (8 * byte)) as u8 as usize] += 1;
        }
    }
    let mut buf: Vec<T> = v.clone();
    for (byte, count) in counts.iter_mut().enumerate() {
        if count.iter().any(|&n| n as usize == v.len()) {
            continue; // one value for this byte in every key
        }
        let mut sum = 0;
        for n in count.iter_mut() {
            let here = *n;
            *n = sum;
            sum += here;
        }
        for x in v.iter() {
            let d = (key(x) >> (8 * byte)) as u8 as usize;
            buf[count[d] as usize] = *x;
            count[d] += 1;
        }
        core::mem::swap(v, &mut buf);
    }
}

/// The `k` smallest of `keys`, ascending (a bounded max-heap, then a sort of the heap).
pub(crate) fn smallest(keys: impl IntoIterator<Item = u64>, k: usize) -> Vec<u64> {
    let mut heap: Vec<u64> = Vec::with_capacity(k);
    if k == 0 {
        return heap;
    }
    for x in keys {
        if heap.len() < k {
            // Sift up.
            heap.push(x);
            let mut i = heap.len() - 1;
            while i > 0 && heap[(i - 1) / 2] < heap[i] {
                heap.swap(i, (i - 1) / 2);
                i = (i - 1) / 2;
            }
        } else if x < heap[0] {
            // Replace the largest and sift down.
            heap[0] = x;
            let mut i = 0;
            loop {
                let (l, r) = (2 * i + 1, 2 * i + 2);
                let mut top = i;
                if l < k && heap[l] > heap[top] {
                    top = l;
                }
                if r < k && heap[r] > heap[top] {
                    top = r;
                }
                if top == i {
                    break;
                }
                heap.swap(i, top);
                i = top;
            }
        }
    }
    by_u64(&mut heap, |&x| x);
    heap
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 11
    }

    #[test]
    fn sorts_like_the_standard_sort() {
        let mut seed = 7;
        for len in [0, 1, 2, 31, 32, 33, 100, 1000, 5000] {
            for spread in [3u64, 1 << 20, u64::MAX] {
                let v: Vec<u64> = (0..len).map(|_| rng(&mut seed) % spread.max(1)).collect();
                let mut want = v.clone();
                want.sort_unstable();
                let mut got = v.clone();
                by_u64(&mut got, |&x| x);
                assert_eq!(got, want);
                for k in [0, 1, 5, 20, len, len + 3] {
                    let top = smallest(v.iter().copied(), k);
                    assert_eq!(top, want[..k.min(len)], "k {k} of {len}");
                }
            }
        }
    }

    #[test]
    fn equal_keys_keep_their_order() {
        let mut v: Vec<(u64, usize)> = (0..200).map(|i| ((i % 7) as u64, i)).collect();
        by_u64(&mut v, |x| x.0);
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1));
    }
}
