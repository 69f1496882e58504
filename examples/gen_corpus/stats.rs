//! The measured shape of a generated corpus, printed by `--stats`.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// Rows of `u32` items (compressed sparse rows): author -> papers or paper -> authors.
pub struct Csr {
    offsets: Vec<usize>,
    items: Vec<u32>,
}

impl Csr {
    pub fn from_lists(lists: &[Vec<u32>]) -> Csr {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        offsets.push(0);
        let mut items = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for list in lists {
            items.extend_from_slice(list);
            offsets.push(items.len());
        }
        Csr { offsets, items }
    }

    /// Rows of the given lengths, all items 0.
    pub fn with_lengths(lengths: impl Iterator<Item = usize>) -> Csr {
        let mut offsets = vec![0];
        let mut total = 0;
        for len in lengths {
            total += len;
            offsets.push(total);
        }
        Csr {
            offsets,
            items: vec![0; total],
        }
    }

    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn row(&self, i: usize) -> &[u32] {
        &self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    pub fn row_mut(&mut self, i: usize) -> &mut [u32] {
        &mut self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    pub fn row_range(&self, i: usize) -> std::ops::Range<usize> {
        self.offsets[i]..self.offsets[i + 1]
    }

    pub fn items(&self) -> &[u32] {
        &self.items
    }

    pub fn items_mut(&mut self) -> &mut [u32] {
        &mut self.items
    }

    /// Drops the items equal to `u32::MAX`.
    pub fn without_dropped(self) -> Csr {
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        let mut items = Vec::with_capacity(self.items.len());
        for i in 0..self.rows() {
            items.extend(self.row(i).iter().copied().filter(|&x| x != u32::MAX));
            offsets.push(items.len());
        }
        Csr { offsets, items }
    }

    /// The transpose: row `j` lists the rows whose items contain `j`, in increasing order.
    pub fn transpose(&self, columns: usize) -> Csr {
        let mut counts = vec![0usize; columns + 1];
        for &x in &self.items {
            counts[x as usize + 1] += 1;
        }
        for j in 0..columns {
            counts[j + 1] += counts[j];
        }
        let offsets = counts.clone();
        let mut next = counts;
        let mut items = vec![0u32; self.items.len()];
        for i in 0..self.rows() {
            for &x in self.row(i) {
                items[next[x as usize]] = i as u32;
                next[x as usize] += 1;
            }
        }
        Csr { offsets, items }
    }
}

/// What the statistics need to know of one paper.
pub struct PaperFacts {
    pub year: u16,
    pub subject: &'static str,
    pub title_chars: u32,
    pub abstract_chars: u32,
    pub title_math: bool,
    pub abstract_math: bool,
}

/// Nearest-rank quantile of sorted values.
fn quantile(sorted: &[usize], q: f64) -> usize {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn mean(values: &[usize]) -> f64 {
    values.iter().sum::<usize>() as f64 / values.len().max(1) as f64
}

fn percent(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// The shape report: several lines, each starting with `gen_corpus stats:`.
pub fn report(papers_of: &Csr, authors_of: &Csr, names: &[String], facts: &[PaperFacts]) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        let _ = writeln!(out, "gen_corpus stats: {text}");
    };

    let mut per_paper: Vec<usize> = (0..authors_of.rows())
        .map(|p| authors_of.row(p).len())
        .collect();
    per_paper.sort_unstable();
    let shared = per_paper.iter().filter(|&&k| k >= 2).count();
    let huge = per_paper.iter().filter(|&&k| k >= 200).count();
    line(format!(
        "files per paper: mean {:.3}, median {}, p90 {}, p99 {}, max {}; in >=2 files {:.1}%, in >=200 files {huge} papers",
        mean(&per_paper),
        quantile(&per_paper, 0.5),
        quantile(&per_paper, 0.9),
        quantile(&per_paper, 0.99),
        per_paper.last().copied().unwrap_or(0),
        percent(shared, per_paper.len()),
    ));

    let mut per_file: Vec<usize> = (0..papers_of.rows())
        .map(|a| papers_of.row(a).len())
        .collect();
    per_file.sort_unstable();
    let single = per_file.iter().filter(|&&n| n == 1).count();
    line(format!(
        "records per file: mean {:.3}, median {}, p90 {}, p99 {}, max {}; files with one record {:.1}%",
        mean(&per_file),
        quantile(&per_file, 0.5),
        quantile(&per_file, 0.9),
        quantile(&per_file, 0.99),
        per_file.last().copied().unwrap_or(0),
        percent(single, per_file.len()),
    ));

    // Distinct co-authors per file, leaving out large collaborations (more than 50
    // files), and how many share two or more papers.
    let mut coauthors = Vec::with_capacity(papers_of.rows());
    let (mut pairs, mut repeated) = (0usize, 0usize);
    let (mut multi, mut with_repeat) = (0usize, 0usize);
    let mut scratch: Vec<u32> = Vec::new();
    for a in 0..papers_of.rows() {
        scratch.clear();
        for &p in papers_of.row(a) {
            let row = authors_of.row(p as usize);
            if row.len() <= 50 {
                scratch.extend(row.iter().filter(|&&b| b as usize != a));
            }
        }
        scratch.sort_unstable();
        let (mut distinct, mut again) = (0, 0);
        let mut i = 0;
        while i < scratch.len() {
            let mut j = i + 1;
            while j < scratch.len() && scratch[j] == scratch[i] {
                j += 1;
            }
            distinct += 1;
            again += usize::from(j - i >= 2);
            i = j;
        }
        pairs += distinct;
        repeated += again;
        if papers_of.row(a).len() >= 2 {
            multi += 1;
            with_repeat += usize::from(again > 0);
        }
        coauthors.push(distinct);
    }
    coauthors.sort_unstable();
    line(format!(
        "co-authors per file (papers in <=50 files): mean {:.1}, median {}, p90 {}, max {}; pairs with >=2 papers together {:.1}%; files of >=2 records with such a co-author {:.1}%",
        mean(&coauthors),
        quantile(&coauthors, 0.5),
        quantile(&coauthors, 0.9),
        coauthors.last().copied().unwrap_or(0),
        percent(repeated, pairs),
        percent(with_repeat, multi),
    ));

    let mut subjects: HashMap<&str, usize> = HashMap::new();
    let mut years: HashMap<u16, usize> = HashMap::new();
    for f in facts {
        *subjects.entry(f.subject).or_default() += 1;
        *years.entry(f.year).or_default() += 1;
    }
    let mut top: Vec<(&str, usize)> = subjects.iter().map(|(&s, &n)| (s, n)).collect();
    top.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    let top: Vec<String> = top
        .iter()
        .take(5)
        .map(|(s, n)| format!("{s} {:.1}%", percent(*n, facts.len())))
        .collect();
    let (first, last) = (
        years.keys().min().copied().unwrap_or(0),
        years.keys().max().copied().unwrap_or(0),
    );
    let recent: usize = years
        .iter()
        .filter(|(&y, _)| y + 5 > last)
        .map(|(_, &n)| n)
        .sum();
    line(format!(
        "subjects: {} distinct (largest: {}); years: {} distinct ({first}-{last}), {:.1}% in the last five",
        subjects.len(),
        top.join(", "),
        years.len(),
        percent(recent, facts.len()),
    ));

    let mut titles: Vec<usize> = facts.iter().map(|f| f.title_chars as usize).collect();
    titles.sort_unstable();
    let mut abstracts: Vec<usize> = facts.iter().map(|f| f.abstract_chars as usize).collect();
    abstracts.sort_unstable();
    let math = facts.iter().filter(|f| f.abstract_math).count();
    let title_math = facts.iter().filter(|f| f.title_math).count();
    line(format!(
        "titles: mean {:.0} characters (p10 {}, median {}, p90 {}, max {}), {:.1}% with $...$ math",
        mean(&titles),
        quantile(&titles, 0.1),
        quantile(&titles, 0.5),
        quantile(&titles, 0.9),
        titles.last().copied().unwrap_or(0),
        percent(title_math, facts.len()),
    ));
    line(format!(
        "abstracts: mean {:.0} characters (p10 {}, median {}, p90 {}, max {}), {:.1}% with $...$ math",
        mean(&abstracts),
        quantile(&abstracts, 0.1),
        quantile(&abstracts, 0.5),
        quantile(&abstracts, 0.9),
        abstracts.last().copied().unwrap_or(0),
        percent(math, facts.len()),
    ));

    let non_ascii = names.iter().filter(|n| !n.is_ascii()).count();
    let distinct: HashSet<&str> = names.iter().map(String::as_str).collect();
    line(format!(
        "names: {:.2}% non-ASCII, {} distinct of {} files",
        percent(non_ascii, names.len()),
        distinct.len(),
        names.len(),
    ));
    out
}
