//! Readable ASCII slugs for URLs.
//!
//! Transliteration is done by `deunicode` through the `slug` crate
//! (`Łukasz` -> `lukasz`, `王伟` -> `wang-wei`). A slug is lowercase ASCII
//! letters, digits and single hyphens: it can never contain `/`, `.` or `..`.

use std::collections::HashSet;

/// The longest slug produced from a title, in bytes, before disambiguating suffixes.
pub const MAX_SLUG_LEN: usize = 72;

/// Slugifies `text`, cut at a word boundary to at most [`MAX_SLUG_LEN`] bytes. Returns
/// `fallback` when nothing slug-worthy is left (e.g. a title made only of symbols).
pub fn slugify(text: &str, fallback: &str) -> String {
    let full = slug::slugify(text);
    let mut slug = if full.len() <= MAX_SLUG_LEN {
        full
    } else {
        let cut = &full[..MAX_SLUG_LEN];
        match cut.rfind('-') {
            Some(i) if i > MAX_SLUG_LEN / 2 => cut[..i].to_string(),
            _ => cut.trim_end_matches('-').to_string(),
        }
    };
    if slug.is_empty() {
        slug = fallback.to_string();
    }
    slug
}

/// Whether `s` is a well-formed slug: non-empty lowercase ASCII letters, digits and inner
/// single hyphens.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A URL path segment for an arXiv subject code: the code itself when it is a safe
/// segment (`cs.DC`, `physics.soc-ph`), a slug otherwise. Never empty, never `.` or `..`,
/// never contains `/`.
pub fn subject_segment(code: &str) -> String {
    let safe = !code.is_empty()
        && code.len() <= 40
        && code.starts_with(|c: char| c.is_ascii_alphabetic())
        && !code.contains("..")
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if safe {
        code.to_string()
    } else {
        slugify(code, "unknown")
    }
}

/// Makes slugs unique. Input: each item's base slug, and its identity key (asked for
/// only when its base is shared). Items sharing a base are ordered by identity key; the
/// first keeps the base, the others get a suffix from a stable hash of their key (and, in
/// the unlikely case that collides too, a counter). The result depends only on the set
/// of items, never on their order.
pub fn unique_slugs(bases: Vec<String>, key_of: impl Fn(usize) -> String) -> Vec<String> {
    unique_slugs_ordered(bases, key_of).0
}

/// [`unique_slugs`], and the items in the order of their slugs (as [`order_by_key`]
/// gives it). When no two items share a base, that is the order of the bases, which
/// are sorted anyway: the slugs are not sorted again.
pub fn unique_slugs_ordered(
    bases: Vec<String>,
    key_of: impl Fn(usize) -> String,
) -> (Vec<String>, Vec<usize>) {
    let (slugs, base_order, renamed) = named_in_base_order(bases, |base, sharing, taken| {
        let mut keyed: Vec<(String, usize)> = sharing.iter().map(|&m| (key_of(m), m)).collect();
        keyed.sort();
        let mut names = vec![(keyed[0].1, base.to_string())];
        for (key, m) in &keyed[1..] {
            let hash = crate::normalize::stable_hash(key) >> 40;
            let mut candidate = format!("{base}-{hash:06x}");
            let mut n = 2;
            while !taken.take(&candidate) {
                candidate = format!("{base}-{hash:06x}-{n}");
                n += 1;
            }
            names.push((*m, candidate));
        }
        names
    });
    let order = merge_renamed(&slugs, base_order, &renamed);
    (slugs, order)
}

/// The items in the order of their `names`, from their order by base and the items
/// whose name is not their base (`renamed`, in any order): the others' names are their
/// bases, so they are in order already, and the renamed ones are merged in.
fn merge_renamed(names: &[String], base_order: Vec<usize>, renamed: &[usize]) -> Vec<usize> {
    if renamed.is_empty() {
        return base_order;
    }
    let mut moved: Vec<usize> = renamed.to_vec();
    moved.sort_unstable_by(|&a, &b| names[a].cmp(&names[b]));
    let mut is_moved = vec![false; names.len()];
    for &m in &moved {
        is_moved[m] = true;
    }
    let staying: Vec<usize> = base_order.into_iter().filter(|&i| !is_moved[i]).collect();
    // Each moved item goes after the staying ones named before it, found by bisection:
    // comparing every item's name would read every name.
    let mut order = Vec::with_capacity(staying.len() + moved.len());
    let mut from = 0;
    for m in moved {
        let at = from + staying[from..].partition_point(|&item| names[item] < names[m]);
        order.extend_from_slice(&staying[from..at]);
        order.push(m);
        from = at;
    }
    order.extend_from_slice(&staying[from..]);
    order
}

/// Names (slugs, citation keys) for items, from each item's base name, unique among
/// them all. An item whose base no other item has keeps it. The items sharing a base
/// are handed to `name_sharing` (with the base, in the order of the bases) and it names
/// each of them, typically the first with the base and the others with suffixed
/// candidates, each the first that [`Taken::take`] accepts: one that is neither an
/// item's base nor a name handed out before. An item it leaves out keeps its base.
pub fn unique_names(
    bases: Vec<String>,
    name_sharing: impl FnMut(&str, &[usize], &mut Taken) -> Vec<(usize, String)>,
) -> Vec<String> {
    named_in_base_order(bases, name_sharing).0
}

/// [`unique_names`], with the items in the order of their bases and the items whose
/// name is not their base.
fn named_in_base_order(
    bases: Vec<String>,
    mut name_sharing: impl FnMut(&str, &[usize], &mut Taken) -> Vec<(usize, String)>,
) -> (Vec<String>, Vec<usize>, Vec<usize>) {
    let order = order_by_key(&bases);
    let mut taken = Taken {
        bases: &bases,
        order: &order,
        suffixed: HashSet::new(),
    };
    let mut names: Vec<Option<String>> = vec![None; bases.len()];
    let mut renamed = Vec::new();
    for sharing in order.chunk_by(|&a, &b| bases[a] == bases[b]) {
        if let [first, _, ..] = sharing {
            for (item, name) in name_sharing(&bases[*first], sharing, &mut taken) {
                if name != bases[item] {
                    renamed.push(item);
                }
                names[item] = Some(name);
            }
        }
    }
    let names = names
        .into_iter()
        .zip(bases)
        .map(|(name, base)| name.unwrap_or(base))
        .collect();
    (names, order, renamed)
}

/// The names that suffixed candidates may not take in [`unique_names`]: every item's
/// base and the names handed out before.
pub struct Taken<'b> {
    bases: &'b [String],
    /// The items in the order of their bases, in which a candidate is looked for by
    /// bisection (a set of every base cost a rebuild of a large site 0.1 s for each
    /// kind of name, for the few candidates it is asked about).
    order: &'b [usize],
    suffixed: HashSet<String>,
}

impl Taken<'_> {
    /// Takes `candidate` if it is neither an item's base nor taken before; whether it did.
    pub fn take(&mut self, candidate: &str) -> bool {
        let bases = self.bases;
        let is_base = (self.order)
            .binary_search_by(|&item| bases[item].as_str().cmp(candidate))
            .is_ok();
        !is_base && self.suffixed.insert(candidate.to_string())
    }
}

/// The indices of `keys` in the order of the keys (equal keys in index order), sorted
/// on every thread.
///
/// Each index is sorted with the first 32 bytes of its key as two numbers (`prefix`),
/// which order keys as their bytes do: most comparisons are of numbers held in the
/// list, and only keys with the same start are read. (Sorting slugs and citation keys
/// of 500,000 papers and 200,000 authors took about a second of each rebuild. Titles
/// often start alike: four in five of the 500,000 paper slugs of the benchmark corpus
/// share their first 16 bytes with another, one in five their first 32; sorting them
/// took 76–88 ms on two threads with 32 bytes against 110–122 ms with 16.)
pub fn order_by_key<K: AsRef<str> + Sync>(keys: &[K]) -> Vec<usize> {
    use rayon::prelude::*;
    let mut order: Vec<([u128; 2], usize)> = (keys.par_iter().enumerate())
        .map(|(i, key)| (prefix(key.as_ref()), i))
        .collect();
    order.par_sort_unstable_by(|a, b| {
        (a.0.cmp(&b.0))
            .then_with(|| keys[a.1].as_ref().cmp(keys[b.1].as_ref()))
            .then(a.1.cmp(&b.1))
    });
    order.into_iter().map(|(_, i)| i).collect()
}

/// The first 32 bytes of `key` as two big-endian numbers, padded with zero bytes: if
/// one key's numbers are less than another's, so is the key (a shorter key that the
/// other starts with pads with zeros, which no byte is below); equal numbers say
/// nothing.
fn prefix(key: &str) -> [u128; 2] {
    let mut bytes = [0u8; 32];
    let start = &key.as_bytes()[..key.len().min(32)];
    bytes[..start.len()].copy_from_slice(start);
    let half = |range: std::ops::Range<usize>| {
        let mut number = [0u8; 16];
        number.copy_from_slice(&bytes[range]);
        u128::from_be_bytes(number)
    };
    [half(0..16), half(16..32)]
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The order [`unique_slugs_ordered`] gives without sorting the slugs is the
        /// order of the slugs, also when suffixed slugs land among other bases.
        #[test]
        fn slugs_come_in_the_order_of_the_slugs(
            bases in proptest::collection::vec("(a|b)(-[0-9a-f]{0,2})?", 0..40),
        ) {
            let (slugs, order) = unique_slugs_ordered(bases.clone(), |i| format!("key {i}"));
            proptest::prop_assert_eq!(&order, &order_by_key(&slugs));
            proptest::prop_assert_eq!(slugs, unique_slugs(bases, |i| format!("key {i}")));
        }
    }

    #[test]
    fn a_suffix_that_is_another_items_base_or_taken_before_is_not_handed_out() {
        let suffix = |key: &str| crate::normalize::stable_hash(key) >> 40;
        let clash = format!("x-{:06x}", suffix("key 1"));
        // Item 1 would get `clash`, which item 2 has as its base: it gets a counter.
        let bases = vec!["x".to_string(), "x".to_string(), clash.clone(), "w".into()];
        let (slugs, order) = unique_slugs_ordered(bases, |i| format!("key {i}"));
        assert_eq!(slugs, ["x", &format!("{clash}-2"), &clash, "w"]);
        assert_eq!(order, order_by_key(&slugs));
        // On its own: bases and names handed out are taken, others are free.
        let mut taken = Taken {
            bases: &["y".to_string()],
            order: &[0],
            suffixed: HashSet::new(),
        };
        assert!(!taken.take("y"), "a base");
        assert!(taken.take("y-1"));
        assert!(!taken.take("y-1"), "handed out before");
        assert!(taken.take("a"), "below every base");
        assert!(taken.take("z"), "above every base");
    }

    #[test]
    fn a_suffixed_slug_is_ordered_among_the_bases_it_falls_between() {
        let bases = ["b", "a", "a-0", "a-zzz", "a", "a"]
            .map(String::from)
            .to_vec();
        let (slugs, order) = unique_slugs_ordered(bases, |i| format!("key {i}"));
        let in_order: Vec<&str> = order.iter().map(|&i| slugs[i].as_str()).collect();
        let mut sorted = in_order.clone();
        sorted.sort_unstable();
        assert_eq!(in_order, sorted);
        assert_eq!(in_order.len(), 6);
        assert!(in_order[0] == "a" && in_order[5] == "b", "{in_order:?}");
        // The two suffixed copies of `a` fall between `a-0` and `a-zzz`.
        assert_eq!(in_order[1], "a-0");
        assert_eq!(in_order[4], "a-zzz");
    }

    proptest::proptest! {
        /// Keys that share their first 16 or 32 bytes, or end within them, come in the
        /// order of their bytes, equal ones in the order of their indices.
        #[test]
        fn keys_with_long_shared_starts_are_ordered_as_their_bytes(
            keys in proptest::collection::vec(
                "(existence-and-uniqueness-of-ma|existence-and-|)[ab\\x00]{0,4}", 0..40,
            ),
        ) {
            let mut expected: Vec<usize> = (0..keys.len()).collect();
            expected.sort_by(|&a, &b| keys[a].cmp(&keys[b]).then(a.cmp(&b)));
            proptest::prop_assert_eq!(order_by_key(&keys), expected);
        }
    }

    #[test]
    fn keys_are_ordered_as_their_bytes_whatever_their_first_sixteen_bytes() {
        let keys: Vec<String> = [
            "learning-to-rank-with-graphs",
            "learning-to-rank-with-graph",
            "learning-to-rank",
            "learning-to-rank\0",
            "learning-to-ranl",
            "learning",
            "",
            "\0",
            "zeta",
            "ärger",
            "learning-to-rank-with-graphs",
            "a",
            "learning-to-rank-with-graphs-2",
        ]
        .iter()
        .map(|k| k.to_string())
        .collect();
        let mut expected: Vec<usize> = (0..keys.len()).collect();
        expected.sort_by(|&a, &b| keys[a].cmp(&keys[b]).then(a.cmp(&b)));
        assert_eq!(order_by_key(&keys), expected);
        let ordered: Vec<&str> = expected.iter().map(|&i| keys[i].as_str()).collect();
        assert_eq!(&ordered[..3], ["", "\0", "a"]);
        assert_eq!(
            ordered[4], "learning-to-rank",
            "a key before the longer keys it starts"
        );
        assert_eq!(ordered[5], "learning-to-rank\0");
        // Equal keys keep the order of their indices.
        assert_eq!(&expected[7..9], [0, 10]);
        assert!(prefix("ab") < prefix("ab\0\x01") && prefix("ab") == prefix("ab\0"));
        let long = "existence-and-uniqueness-of-magnetic";
        assert!(prefix(&long[..31]) < prefix(&long[..32]));
        assert_eq!(prefix(&long[..32]), prefix(long), "the same first 32 bytes");
    }

    #[test]
    fn transliterates_to_readable_ascii() {
        assert_eq!(slugify("Łukasz", "x"), "lukasz");
        assert_eq!(slugify("Staša Milojević", "x"), "stasa-milojevic");
        assert_eq!(slugify("Zoë O'Brien", "x"), "zoe-o-brien");
        assert_eq!(slugify("王伟", "x"), "wang-wei");
        assert_eq!(slugify("Bor-Yiing Su", "x"), "bor-yiing-su");
    }

    #[test]
    fn never_contains_path_separators_or_dots() {
        for hostile in [
            "../../etc/passwd",
            "a/b\\c",
            "..",
            ".",
            "<script>x</script>",
            "C:\\x",
            "%2e%2e%2f",
        ] {
            let s = slugify(hostile, "fallback");
            assert!(is_slug(&s), "{hostile:?} -> {s:?}");
            assert!(!s.contains('/') && !s.contains('.') && !s.contains('\\'));
        }
    }

    #[test]
    fn empty_result_uses_fallback() {
        assert_eq!(slugify("!!! ??? --- ...", "paper"), "paper");
        assert_eq!(slugify("∑ → ∞", "paper"), "s-inf");
        assert_eq!(slugify("", "author"), "author");
    }

    #[test]
    fn long_text_is_cut_at_a_word_boundary() {
        let title = "Scalable Training of Mixture-of-Experts Models with Megatron Core and Many More Words Beyond the Limit";
        let s = slugify(title, "x");
        assert!(s.len() <= MAX_SLUG_LEN, "{s}");
        assert!(!s.ends_with('-'));
        assert!(
            title.to_lowercase().replace(' ', "-").starts_with(&s),
            "{s}"
        );
    }

    #[test]
    fn subject_segments_are_safe() {
        assert_eq!(subject_segment("cs.DC"), "cs.DC");
        assert_eq!(subject_segment("physics.soc-ph"), "physics.soc-ph");
        assert_eq!(subject_segment("../x"), "x");
        assert_eq!(subject_segment(".."), "unknown");
        assert_eq!(subject_segment("a/b"), "a-b");
        assert_eq!(subject_segment("<script>"), "script");
    }
}
