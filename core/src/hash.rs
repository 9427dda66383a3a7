//! The hasher of every map in the core: FxHash. Its 64-bit multiply is one instruction in
//! WebAssembly, where foldhash's 128-bit multiply is a library call; replay inside the
//! component spends much of its time hashing. Keys come from the memory's own clients, so
//! resistance to deliberate collisions is not needed.

/// Builds the hasher.
pub type Hasher = rustc_hash::FxBuildHasher;
/// A `hashbrown` map with [`Hasher`].
pub type HashMap<K, V> = hashbrown::HashMap<K, V, Hasher>;
/// A `hashbrown` set with [`Hasher`].
pub type HashSet<K> = hashbrown::HashSet<K, Hasher>;
