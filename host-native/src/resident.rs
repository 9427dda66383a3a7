//! Memory made resident in bulk, before it is first written.
//!
//! Opening a large memory writes tens of megabytes into fresh pages: the host's buffer for
//! the checkpoint and the guest's heap. Faulted in one 4 KiB page at a time on first touch,
//! they cost a start about a third of its time on the virtual machines measured (~10K faults
//! at 40K entities); asked for in one call per range (`MADV_POPULATE_WRITE`, Linux 5.14+),
//! the kernel fills them without a fault each. Elsewhere, and on older kernels, pages fault
//! in as before: this only ever changes when memory becomes resident, never what it holds.

use std::ptr::NonNull;
use std::sync::Arc;

use wasmtime::{LinearMemory, MemoryCreator, MemoryType};

/// Ranges shorter than this are left to fault in: a call costs about as much as a few
/// faults. (The guest's allocator mostly grows its heap 64 KiB at a time.)
const MIN_POPULATE: usize = 64 << 10;

/// Makes the whole pages of `bytes` resident and writable at once, if it is long enough to
/// be worth a call.
pub fn populate(bytes: &mut [u8]) {
    const PAGE: usize = 4096;
    let start = (bytes.as_mut_ptr() as usize).next_multiple_of(PAGE);
    let end = (bytes.as_mut_ptr() as usize + bytes.len()) & !(PAGE - 1);
    if end > start {
        // SAFETY: the range lies within `bytes`, which the caller may write.
        unsafe { populate_range(start as *mut u8, end - start) };
    }
}

/// Makes `len` bytes from `start` (page-aligned) resident and writable, if `len` is worth
/// a call.
///
/// # Safety
/// The range must be mapped readable and writable.
unsafe fn populate_range(start: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    if len >= MIN_POPULATE {
        // Best effort: where the kernel refuses, the pages fault in when touched.
        // SAFETY: the caller vouches for the range; populating does not change its bytes.
        unsafe { libc::madvise(start.cast(), len, libc::MADV_POPULATE_WRITE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len, MIN_POPULATE);
}

/// Gives wasmtime guest memories whose growth is populated in bulk: the guest's allocator
/// grows its heap when it is about to write there, so what is populated is what it uses.
pub struct GuestMemories;

impl GuestMemories {
    /// The creator to hand to `Config::with_host_memory`.
    pub fn creator() -> Arc<dyn MemoryCreator> {
        Arc::new(GuestMemories)
    }
}

/// The most a 32-bit wasm memory can address: the reservation when wasmtime leaves it to us.
const MAX_32: usize = 1 << 32;

// SAFETY: each memory reserves what wasmtime asks for, with the guard after it left
// inaccessible; it never moves, and it starts zero-filled (fresh anonymous pages).
unsafe impl MemoryCreator for GuestMemories {
    fn new_memory(
        &self,
        _ty: MemoryType,
        minimum: usize,
        maximum: Option<usize>,
        reserved_size_in_bytes: Option<usize>,
        guard_size_in_bytes: usize,
    ) -> Result<Box<dyn LinearMemory>, String> {
        let capacity = reserved_size_in_bytes
            .unwrap_or(maximum.unwrap_or(MAX_32))
            .max(minimum);
        let mut memory = GuestMemory::reserve(capacity, guard_size_in_bytes)?;
        memory.grow_to(minimum).map_err(|e| format!("{e:#}"))?;
        Ok(Box::new(memory))
    }
}

/// A reservation of address space whose first `size` bytes are accessible.
struct GuestMemory {
    base: NonNull<u8>,
    size: usize,
    /// How far it may grow (the guard after it never becomes accessible).
    capacity: usize,
    /// The whole mapping's length: capacity and guard.
    mapped: usize,
}

// SAFETY: the mapping belongs to this value alone; wasmtime orders every access to it.
unsafe impl Send for GuestMemory {}
// SAFETY: shared references only read the fields.
unsafe impl Sync for GuestMemory {}

impl GuestMemory {
    fn reserve(capacity: usize, guard: usize) -> Result<Self, String> {
        let mapped = capacity
            .checked_add(guard)
            .ok_or("a guest memory's reservation overflows")?;
        // SAFETY: a fresh private mapping where the kernel chooses; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            let e = std::io::Error::last_os_error();
            return Err(format!("reserving {mapped} bytes for a guest memory: {e}"));
        }
        let base = NonNull::new(base.cast()).ok_or("mmap gave a null address")?;
        Ok(GuestMemory {
            base,
            size: 0,
            capacity,
            mapped,
        })
    }
}

// SAFETY: `as_ptr` never changes, the first `byte_size` bytes are readable and writable, and
// growth stays within the reservation.
unsafe impl LinearMemory for GuestMemory {
    fn byte_size(&self) -> usize {
        self.size
    }

    fn byte_capacity(&self) -> usize {
        self.capacity
    }

    fn grow_to(&mut self, new_size: usize) -> wasmtime::Result<()> {
        if new_size > self.capacity {
            wasmtime::bail!("a guest memory cannot grow past {} bytes", self.capacity);
        }
        if new_size <= self.size {
            return Ok(());
        }
        let len = new_size - self.size;
        // SAFETY: the range lies within the reservation, after every accessible byte; once
        // it is accessible it may be populated.
        unsafe {
            let start = self.base.as_ptr().add(self.size);
            if libc::mprotect(start.cast(), len, libc::PROT_READ | libc::PROT_WRITE) != 0 {
                return Err(std::io::Error::last_os_error().into());
            }
            populate_range(start, len);
        }
        self.size = new_size;
        Ok(())
    }

    fn as_ptr(&self) -> *mut u8 {
        self.base.as_ptr()
    }
}

impl Drop for GuestMemory {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `reserve` with this length; wasmtime no longer
        // uses it.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.mapped) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guest_memory_grows_zeroed_within_its_reservation_and_no_further() {
        let mut m = GuestMemory::reserve(64 << 20, 1 << 20).unwrap();
        m.grow_to(1 << 16).unwrap();
        m.grow_to(3 << 20).unwrap(); // populated: past MIN_POPULATE
        assert_eq!((m.byte_size(), m.byte_capacity()), (3 << 20, 64 << 20));
        // SAFETY: byte_size bytes from as_ptr are accessible.
        let bytes = unsafe { std::slice::from_raw_parts_mut(m.as_ptr(), m.byte_size()) };
        assert!(bytes.iter().all(|&b| b == 0));
        bytes[(3 << 20) - 1] = 7;
        m.grow_to(1 << 16).unwrap(); // never shrinks
        assert_eq!(m.byte_size(), 3 << 20);
        let err = m.grow_to((64 << 20) + 1).unwrap_err();
        assert!(err.to_string().contains("cannot grow past"), "{err}");
        assert_eq!(m.byte_size(), 3 << 20);
    }

    #[test]
    fn populating_keeps_what_a_buffer_holds() {
        let mut bytes: Vec<u8> = (0..(3 << 20) + 123).map(|i| i as u8).collect();
        populate(&mut bytes[5..]);
        assert!(bytes.iter().enumerate().all(|(i, &b)| b == i as u8));
    }
}
