//! What a clean merge gives at one path, decided on plain values: the rule
//! that tells a merge's own changes from what it took in
//! (docs/provenance.md#merges, decision 0023).
//!
//! Owns the decision only. It reads nothing: the tree walk (`diff.rs`)
//! hands it, at each path, the merge's entry, each parent's, and the
//! entries of the merge bases each parent is merged on. It must not guess
//! content: a path both sides changed differently has no clean value here
//! (git would merge the blobs), so whatever the merge holds there is its own.

/// What a clean merge of the parents gives at one path, or `None` when it
/// cannot be told from the entries alone.
///
/// The parents are merged in turn, as git's octopus strategy merges them:
/// `first` (the first parent's value) is the running result; each of
/// `rest` is a further parent's value with the values its merge bases hold
/// (the merge bases of that parent and the parents before it). For each:
///
/// - both agree: that value;
/// - the running result is the base's: the parent's (only it changed);
/// - the parent's is the base's: the running result (only it changed);
/// - else both changed it, differently: no clean value (`None`).
///
/// Several bases count as one only where they all hold the same value; where
/// they differ (a criss-cross history), only agreeing sides are clean. An
/// empty list of bases is unknown too: a caller with no common history
/// passes the absent value (git's empty tree) as the one base.
pub fn clean_merge<'b, V: Copy + Eq + 'b>(
    first: V,
    rest: impl IntoIterator<Item = (V, &'b [V])>,
) -> Option<V> {
    let mut running = first;
    for (theirs, bases) in rest {
        running = merge_two(bases, running, theirs)?;
    }
    Some(running)
}

/// A 3-way merge of one path: `ours` and `theirs` over `bases`.
fn merge_two<V: Copy + Eq>(bases: &[V], ours: V, theirs: V) -> Option<V> {
    if ours == theirs {
        return Some(ours);
    }
    let (&base, others) = bases.split_first()?;
    if others.iter().any(|&b| b != base) {
        return None;
    }
    if ours == base {
        Some(theirs)
    } else if theirs == base {
        Some(ours)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path's entry: `None` is absent, a letter a version of it.
    type V = Option<char>;

    const A: V = None;

    /// Whether the merge made `result` itself: not what a clean merge
    /// gives, or no clean merge can tell.
    fn made_by_merge<'b>(
        result: V,
        first: V,
        rest: impl IntoIterator<Item = (V, &'b [V])>,
    ) -> bool {
        clean_merge(first, rest) != Some(result)
    }

    fn two(result: V, ours: V, theirs: V, base: V) -> bool {
        made_by_merge(result, ours, [(theirs, &[base][..])])
    }

    #[test]
    fn taking_the_side_that_changed_a_path_is_clean() {
        // Only theirs changed it.
        assert!(!two(Some('t'), Some('b'), Some('t'), Some('b')));
        // Only ours changed it.
        assert!(!two(Some('o'), Some('o'), Some('b'), Some('b')));
        // Both made the same change.
        assert!(!two(Some('x'), Some('x'), Some('x'), Some('b')));
        // Nobody changed it.
        assert!(!two(Some('b'), Some('b'), Some('b'), Some('b')));
        // Added on one side, deleted on one side.
        assert!(!two(Some('n'), A, Some('n'), A));
        assert!(!two(A, Some('b'), A, Some('b')));
        assert!(!two(A, A, A, A));
    }

    #[test]
    fn dropping_the_side_that_changed_a_path_is_the_merges_own() {
        // Theirs fixed it; the merge keeps ours, the base's version: a revert.
        assert!(two(Some('b'), Some('b'), Some('f'), Some('b')));
        // Theirs added it; the merge leaves it out.
        assert!(two(A, A, Some('n'), A));
        // Theirs deleted it; the merge keeps it.
        assert!(two(Some('b'), Some('b'), A, Some('b')));
        // Ours changed it; the merge takes theirs, the old version.
        assert!(two(Some('b'), Some('o'), Some('b'), Some('b')));
        // An old version neither parent holds.
        assert!(two(Some('z'), Some('o'), Some('b'), Some('b')));
    }

    #[test]
    fn a_path_both_sides_changed_differently_is_always_the_merges_own() {
        // Whatever the merge holds: one side's, the other's, a content
        // merge, the base's, nothing.
        for result in [Some('o'), Some('t'), Some('m'), Some('b'), A] {
            assert!(two(result, Some('o'), Some('t'), Some('b')), "{result:?}");
        }
        // A deletion against a modification.
        assert!(two(Some('t'), A, Some('t'), Some('b')));
        assert!(two(A, A, Some('t'), Some('b')));
        // Two different additions.
        assert!(two(Some('o'), Some('o'), Some('t'), A));
    }

    #[test]
    fn a_parent_that_is_an_ancestor_of_the_other_gives_the_newest_parent() {
        // The second parent is the base (an ancestor of the first): the
        // clean merge is the first parent, at every path.
        for (ours, base) in [
            (Some('o'), Some('b')),
            (Some('b'), Some('b')),
            (A, Some('b')),
        ] {
            assert_eq!(clean_merge(ours, [(base, &[base][..])]), Some(ours));
            assert!(two(base, ours, base, base) == (ours != base));
        }
        // The first parent is the base: the clean merge is the second.
        assert_eq!(
            clean_merge(Some('b'), [(Some('t'), &[Some('b')][..])]),
            Some(Some('t'))
        );
        assert!(two(Some('b'), Some('b'), Some('t'), Some('b')));
    }

    #[test]
    fn bases_that_disagree_leave_only_agreeing_sides_clean() {
        let bases = [Some('b'), Some('c')];
        assert_eq!(clean_merge(Some('b'), [(Some('t'), &bases[..])]), None);
        assert_eq!(
            clean_merge(Some('x'), [(Some('x'), &bases[..])]),
            Some(Some('x'))
        );
        // Bases that agree are one base.
        let same = [Some('b'), Some('b')];
        assert_eq!(
            clean_merge(Some('b'), [(Some('t'), &same[..])]),
            Some(Some('t'))
        );
        // No base at all is no answer either (a caller passes the empty
        // tree for unrelated histories).
        assert_eq!(clean_merge(Some('b'), [(Some('t'), &[][..])]), None);
    }

    #[test]
    fn an_octopus_merges_its_parents_in_turn() {
        // Three parents, each changing its own path: every side's change is
        // taken.
        let base = [Some('b')];
        let rest = |p2: V, p3: V| [(p2, &base[..]), (p3, &base[..])];
        assert_eq!(
            clean_merge(Some('b'), rest(Some('2'), Some('b'))),
            Some(Some('2'))
        );
        assert_eq!(
            clean_merge(Some('b'), rest(Some('b'), Some('3'))),
            Some(Some('3'))
        );
        assert_eq!(
            clean_merge(Some('1'), rest(Some('b'), Some('b'))),
            Some(Some('1'))
        );
        // The third parent's change dropped.
        assert!(made_by_merge(
            Some('b'),
            Some('b'),
            rest(Some('b'), Some('3'))
        ));
        // Two parents changing the same path differently: no clean value.
        assert_eq!(clean_merge(Some('b'), rest(Some('2'), Some('3'))), None);
        // The third parent merged on the running result: its base is where
        // it forked from the second (which changed the path after the first
        // parent's fork), so its own base holds the second's version.
        let later = [Some('2')];
        assert_eq!(
            clean_merge(Some('b'), [(Some('2'), &base[..]), (Some('2'), &later[..])]),
            Some(Some('2'))
        );
        assert_eq!(
            clean_merge(Some('b'), [(Some('2'), &base[..]), (Some('3'), &later[..])]),
            Some(Some('3'))
        );
    }
}
