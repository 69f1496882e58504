//! Hash partitions: splitting many items (pages, authors, papers) into parts by a hash
//! of each item's name, so that a new item changes one part rather than moving every
//! later one. The site's data shards and its sitemap parts are made this way.

/// Splits items, named by `names`, into parts by a hash of each name; each part lists
/// its items' indices in `names`' order. There is at least one part, and the number of
/// parts is a power of two: the fewest that hold `mean` items or fewer on average, so
/// that it changes only when the items pass `mean` times a power of two (and each part
/// then splits in two). Should a part then hold more than twice `mean` (names made to
/// hash alike), the parts double until none does; if that would take a part an item, the
/// items go in order, twice `mean` a part. The names are hashed on every thread.
pub fn hash_parts<N: AsRef<[u8]> + Sync>(names: &[N], mean: usize) -> Vec<Vec<u32>> {
    use rayon::prelude::*;
    let hashes: Vec<u64> = (names.par_iter())
        .map(|name| crate::hash::content_hash(name.as_ref()))
        .collect();
    parts_of_hashes(&hashes, mean)
}

/// [`hash_parts`] of items whose names have these hashes.
fn parts_of_hashes(hashes: &[u64], mean: usize) -> Vec<Vec<u32>> {
    let mean = mean.max(1);
    let most = 2 * mean;
    let mut count = hashes.len().div_ceil(mean).max(1).next_power_of_two();
    while count == 1 || count <= hashes.len() {
        let mut parts: Vec<Vec<u32>> = vec![Vec::new(); count];
        for (i, hash) in hashes.iter().enumerate() {
            parts[(*hash as usize) & (count - 1)].push(i as u32);
        }
        if parts.iter().all(|part| part.len() <= most) {
            return parts;
        }
        count *= 2;
    }
    let items: Vec<u32> = (0..hashes.len() as u32).collect();
    items.chunks(most).map(<[u32]>::to_vec).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(count: usize) -> Vec<String> {
        (0..count).map(|i| format!("papers/p{i}/")).collect()
    }

    #[test]
    fn parts_hold_every_item_once_in_order() {
        let names = names(120_001);
        let parts = hash_parts(&names, 25_000);
        assert_eq!(parts.len(), 8, "120,001 items: 8 parts of about 15,000");
        for part in &parts {
            assert!((13_000..17_000).contains(&part.len()), "{}", part.len());
            assert!(part.windows(2).all(|w| w[0] < w[1]), "in the items' order");
        }
        let mut all: Vec<u32> = parts.concat();
        all.sort_unstable();
        assert_eq!(all, (0..120_001).collect::<Vec<u32>>());
    }

    #[test]
    fn no_items_make_one_empty_part() {
        assert_eq!(hash_parts(&Vec::<&str>::new(), 1000), [Vec::<u32>::new()]);
        assert_eq!(hash_parts(&["a"], 1000), [vec![0]]);
    }

    #[test]
    fn a_new_item_changes_one_part_and_the_count_doubles_by_splitting() {
        let names = names(3_001);
        let parts_of = |names: &[String]| hash_parts(names, 1000);
        let before = parts_of(&names);
        assert_eq!(before.len(), 4);
        // One more item, in the middle: one part changes (by the items' names; the
        // indices after it move by one).
        let mut more = names.clone();
        more.insert(1_500, "authors/new/".into());
        let after = parts_of(&more);
        let listed = |parts: &[Vec<u32>], names: &[String], n: usize| -> Vec<String> {
            parts[n]
                .iter()
                .map(|&i| names[i as usize].clone())
                .collect()
        };
        let changed = (0..4)
            .filter(|&n| listed(&after, &more, n) != listed(&before, &names, n))
            .count();
        assert_eq!(changed, 1);
        // The count doubles when the items pass `mean` times a power of two, and each
        // part splits in two.
        let counts: Vec<usize> = [1_000, 1_001, 2_000, 2_001, 3_001]
            .map(|n| parts_of(&names[..n]).len())
            .into();
        assert_eq!(counts, [1, 2, 2, 4, 4]);
        let (two, four) = (parts_of(&names[..2_000]), parts_of(&names[..2_001]));
        for (i, part) in two.iter().enumerate() {
            let halves: Vec<u32> = four[i].iter().chain(&four[i + 2]).copied().collect();
            assert!(
                part.iter().all(|id| halves.contains(id)),
                "part {i} split in two"
            );
        }
    }

    #[test]
    fn parts_of_hashes_made_alike_stay_within_twice_the_mean() {
        // 60,000 of 80,000 items in the part of hash 0 among 4: the parts double
        // until that part is split.
        let hashes: Vec<u64> = (0..80_000u64)
            .map(|i| if i < 60_000 { (i % 2) * 4 } else { i })
            .collect();
        let parts = parts_of_hashes(&hashes, 25_000);
        assert_eq!(parts.len(), 8);
        assert!(parts.iter().all(|p| p.len() <= 50_000));
        // Every hash alike: the items in order, twice the mean a part.
        let parts = parts_of_hashes(&[7; 120_001], 25_000);
        let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
        assert_eq!(sizes, [50_000, 50_000, 20_001]);
        assert_eq!(parts.concat(), (0..120_001).collect::<Vec<u32>>());
        // Also for a handful of items, which one part would hold.
        assert_eq!(parts_of_hashes(&[3; 5], 2), [vec![0, 1, 2, 3], vec![4]]);
    }
}
