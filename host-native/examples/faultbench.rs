use std::time::Instant;
fn main() {
    let n: usize = 40 << 20;
    for huge in [false, true, false, true] {
        unsafe {
            let len = n + (4 << 20);
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            ) as *mut u8;
            let base = ((p as usize + (2 << 20) - 1) & !((2 << 20) - 1)) as *mut u8;
            if huge {
                libc::madvise(base as *mut _, n, libc::MADV_HUGEPAGE);
            }
            let t = Instant::now();
            let mut off = 0;
            while off < n {
                *base.add(off) = 1;
                off += 4096;
            }
            println!("{} {:?}", if huge { "huge" } else { "4k" }, t.elapsed());
            libc::munmap(p as *mut _, len);
        }
    }
}
