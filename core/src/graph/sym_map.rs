//! A map keyed by interned string, stored by the string's slot: no hashing, and a map
//! filled in slot order (loading a checkpoint) is written front to back instead of at a
//! random place per key, which at 100K+ keys is a cache miss each.

use alloc::vec::Vec;

use crate::intern::Sym;

/// Values by interned string (see the module's docs). Costs four bytes per string slot up
/// to the largest key, plus the values with their keys.
pub struct SymMap<V> {
    /// By string slot: the value's index in `values` plus one, `0` for none.
    at: Vec<u32>,
    /// The values with their keys, in no particular order.
    values: Vec<(Sym, V)>,
}

impl<V> Default for SymMap<V> {
    fn default() -> Self {
        SymMap {
            at: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<V> SymMap<V> {
    fn index(&self, key: Sym) -> Option<usize> {
        match self.at.get(key.index()) {
            Some(&i) if i > 0 => Some(i as usize - 1),
            _ => None,
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: Sym) -> Option<&V> {
        self.index(key).map(|i| &self.values[i].1)
    }

    /// The value of `key`, to change.
    pub fn get_mut(&mut self, key: Sym) -> Option<&mut V> {
        self.index(key).map(|i| &mut self.values[i].1)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: Sym) -> bool {
        self.index(key).is_some()
    }

    /// The value of `key`, made the default first if it has none.
    pub fn get_or_default(&mut self, key: Sym) -> &mut V
    where
        V: Default,
    {
        let i = match self.index(key) {
            Some(i) => i,
            None => self.push(key, V::default()),
        };
        &mut self.values[i].1
    }

    /// Gives `key`, which has no value, this one; returns its index in `values`.
    fn push(&mut self, key: Sym, value: V) -> usize {
        let slot = key.index();
        if slot >= self.at.len() {
            self.at.resize(slot + 1, 0);
        }
        self.values.push((key, value));
        self.at[slot] = self.values.len() as u32;
        self.values.len() - 1
    }

    /// Removes `key`'s value and returns it.
    pub fn remove(&mut self, key: Sym) -> Option<V> {
        let i = self.index(key)?;
        self.at[key.index()] = 0;
        let (_, value) = self.values.swap_remove(i);
        if let Some(&(moved, _)) = self.values.get(i) {
            self.at[moved.index()] = i as u32 + 1;
        }
        Some(value)
    }

    /// Makes room for `more` keys.
    pub fn reserve(&mut self, more: usize) {
        self.values.reserve(more);
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.at.clear();
        self.values.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intern::Interner;
    use alloc::collections::BTreeMap;
    use alloc::format;
    use proptest::prelude::*;

    proptest! {
        /// Any sequence of inserts, changes and removals leaves the map holding what a
        /// BTreeMap holds, whatever order the swaps of removal left the values in.
        #[test]
        fn holds_what_a_btree_map_holds(ops in proptest::collection::vec((0u8..3, 0usize..40, any::<u32>()), 0..200)) {
            let mut strings = Interner::default();
            let keys: Vec<Sym> = (0..40).map(|k| strings.intern(&format!("k{k}"))).collect();
            let mut map = SymMap::<Vec<u32>>::default();
            let mut model = BTreeMap::<usize, Vec<u32>>::new();
            for (op, k, v) in ops {
                match op {
                    0 => {
                        map.get_or_default(keys[k]).push(v);
                        model.entry(k).or_default().push(v);
                    }
                    1 => prop_assert_eq!(map.remove(keys[k]), model.remove(&k)),
                    _ => {
                        if let Some(values) = map.get_mut(keys[k]) {
                            values.clear();
                        }
                        if let Some(values) = model.get_mut(&k) {
                            values.clear();
                        }
                    }
                }
            }
            for (k, &key) in keys.iter().enumerate() {
                prop_assert_eq!(map.get(key), model.get(&k));
                prop_assert_eq!(map.contains_key(key), model.contains_key(&k));
            }
        }
    }
}
