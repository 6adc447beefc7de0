//! Places in a list that holds object ids, found by id.
//!
//! A map from id to place keeps each id a second time beside its place:
//! a slot of 25–33 bytes, and for the 82k commits of git/git's whole
//! history a table of 131,072 slots, 3.3–4.3 MB. Where the list is kept
//! anyway (the range's commits, the run's record of the commits it read),
//! a table of places alone finds the same ids: a slot is the place's four
//! bytes and hashbrown's control byte, 655 KB there, and a lookup
//! compares the id in the list (docs/performance.md, "Real histories").

use gix::hashtable::hash_table::HashTable;

/// Places (`u32`) in a list of ids, each found by the id at it; what the
/// id at a place is, the caller says on each call (`id_at`), so the list
/// may change beside the table as long as the places in it keep their
/// ids.
#[derive(Debug, Default, Clone)]
pub(super) struct Places(HashTable<u32>);

/// An id's hash: gix's own tables' (`gix::hashtable::hash`), its first
/// eight bytes, since an object id is already a hash.
fn hash(id: &gix::oid) -> u64 {
    use std::hash::BuildHasher;
    gix::hashtable::hash::Builder.hash_one(id)
}

impl Places {
    /// A table with room for `n` places before it grows.
    pub(super) fn with_capacity(n: usize) -> Places {
        Places(HashTable::with_capacity(n))
    }

    /// The places of `ids`: each id's first place. Only the first
    /// `u32::MAX` are held: a caller with a longer list refuses it first
    /// (`Repo::walk_changes`).
    pub(super) fn of<T: AsRef<gix::oid>>(ids: &[T]) -> Places {
        let mut places = Places::with_capacity(ids.len());
        for at in 0..ids.len() {
            // A list longer than a `u32` counts is not indexed past it:
            // its callers number their commits with a `u32` too.
            let Ok(at) = u32::try_from(at) else { break };
            places.insert_new(at, |p| ids[p as usize].as_ref());
        }
        places
    }

    /// How many places it holds.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// The place of `id`, if it holds one.
    pub(super) fn get<'a>(
        &self,
        id: &gix::oid,
        id_at: impl Fn(u32) -> &'a gix::oid,
    ) -> Option<u32> {
        self.0.find(hash(id), |&p| id_at(p) == id).copied()
    }

    /// Hold place `at` for the id `id_at(at)` unless the table holds a
    /// place for that id already: whether it was added.
    pub(super) fn insert_new<'a>(&mut self, at: u32, id_at: impl Fn(u32) -> &'a gix::oid) -> bool {
        let id = id_at(at);
        let h = hash(id);
        if self.0.find(h, |&p| id_at(p) == id).is_some() {
            return false;
        }
        self.0.insert_unique(h, at, |&p| hash(id_at(p)));
        true
    }

    /// Each place it holds, in no order.
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u32) -> gix::ObjectId {
        let mut bytes = [0u8; 20];
        bytes[..4].copy_from_slice(&n.to_le_bytes());
        bytes[8..12].copy_from_slice(&n.to_be_bytes());
        gix::ObjectId::from_bytes_or_panic(&bytes)
    }

    #[test]
    fn each_id_is_found_at_its_first_place_and_an_absent_one_nowhere() {
        let ids: Vec<gix::ObjectId> = [1, 2, 3, 2, 5].into_iter().map(id).collect();
        let places = Places::of(&ids);
        assert_eq!(places.len(), 4);
        let at = |p: u32| ids[p as usize].as_ref();
        assert_eq!(places.get(&id(1), at), Some(0));
        assert_eq!(places.get(&id(2), at), Some(1));
        assert_eq!(places.get(&id(5), at), Some(4));
        assert_eq!(places.get(&id(4), at), None);
    }

    #[test]
    fn a_table_that_grows_still_finds_every_place() {
        let mut ids: Vec<gix::ObjectId> = Vec::new();
        let mut places = Places::default();
        for n in 0..10_000u32 {
            ids.push(id(n * 7 + 1));
            assert!(places.insert_new(n, |p| ids[p as usize].as_ref()));
        }
        assert!(!places.insert_new(3, |p| ids[p as usize].as_ref()));
        // Two ids alike in their first eight bytes (the hash) are told
        // apart by the rest.
        let mut twin = *ids[5].as_bytes().first_chunk::<20>().unwrap();
        twin[19] ^= 0xff;
        ids.push(gix::ObjectId::from_bytes_or_panic(&twin));
        assert!(places.insert_new(10_000, |p| ids[p as usize].as_ref()));
        let at = |p: u32| ids[p as usize].as_ref();
        for (n, one) in ids.iter().enumerate() {
            assert_eq!(places.get(one, at), Some(n as u32));
        }
        let mut all: Vec<u32> = places.iter().collect();
        all.sort_unstable();
        assert_eq!(all, (0..=10_000).collect::<Vec<u32>>());
    }
}
