//! The arXiv subject taxonomy as a static lookup table.
//!
//! This follows the public arXiv category taxonomy
//! (<https://arxiv.org/category_taxonomy>): every current category code with
//! its official full name, plus the old archive-level codes `astro-ph` and
//! `cond-mat`, which still appear without a subcategory on older records.
//! Cross-listed aliases that arXiv keeps under two codes (for example
//! `math.MP` / `math-ph`, `eess.SY` / `cs.SY`, `math.ST` / `stat.TH`) are
//! present under both codes.

/// One arXiv category: its code (e.g. `cs.DC`) and full name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Category {
    /// The category code as arXiv writes it, e.g. `cs.DC` or `hep-th`.
    pub code: &'static str,
    /// The official full name, e.g. "Distributed, Parallel, and Cluster Computing".
    pub name: &'static str,
}

/// Shorthand for building the table below.
const fn cat(code: &'static str, name: &'static str) -> Category {
    Category { code, name }
}

/// Every category in the table, sorted by code (byte order), so lookups can binary-search.
pub static CATEGORIES: &[Category] = &[
    cat("astro-ph", "Astrophysics"),
    cat("astro-ph.CO", "Cosmology and Nongalactic Astrophysics"),
    cat("astro-ph.EP", "Earth and Planetary Astrophysics"),
    cat("astro-ph.GA", "Astrophysics of Galaxies"),
    cat("astro-ph.HE", "High Energy Astrophysical Phenomena"),
    cat(
        "astro-ph.IM",
        "Instrumentation and Methods for Astrophysics",
    ),
    cat("astro-ph.SR", "Solar and Stellar Astrophysics"),
    cat("cond-mat", "Condensed Matter"),
    cat("cond-mat.dis-nn", "Disordered Systems and Neural Networks"),
    cat("cond-mat.mes-hall", "Mesoscale and Nanoscale Physics"),
    cat("cond-mat.mtrl-sci", "Materials Science"),
    cat("cond-mat.other", "Other Condensed Matter"),
    cat("cond-mat.quant-gas", "Quantum Gases"),
    cat("cond-mat.soft", "Soft Condensed Matter"),
    cat("cond-mat.stat-mech", "Statistical Mechanics"),
    cat("cond-mat.str-el", "Strongly Correlated Electrons"),
    cat("cond-mat.supr-con", "Superconductivity"),
    cat("cs.AI", "Artificial Intelligence"),
    cat("cs.AR", "Hardware Architecture"),
    cat("cs.CC", "Computational Complexity"),
    cat("cs.CE", "Computational Engineering, Finance, and Science"),
    cat("cs.CG", "Computational Geometry"),
    cat("cs.CL", "Computation and Language"),
    cat("cs.CR", "Cryptography and Security"),
    cat("cs.CV", "Computer Vision and Pattern Recognition"),
    cat("cs.CY", "Computers and Society"),
    cat("cs.DB", "Databases"),
    cat("cs.DC", "Distributed, Parallel, and Cluster Computing"),
    cat("cs.DL", "Digital Libraries"),
    cat("cs.DM", "Discrete Mathematics"),
    cat("cs.DS", "Data Structures and Algorithms"),
    cat("cs.ET", "Emerging Technologies"),
    cat("cs.FL", "Formal Languages and Automata Theory"),
    cat("cs.GL", "General Literature"),
    cat("cs.GR", "Graphics"),
    cat("cs.GT", "Computer Science and Game Theory"),
    cat("cs.HC", "Human-Computer Interaction"),
    cat("cs.IR", "Information Retrieval"),
    cat("cs.IT", "Information Theory"),
    cat("cs.LG", "Machine Learning"),
    cat("cs.LO", "Logic in Computer Science"),
    cat("cs.MA", "Multiagent Systems"),
    cat("cs.MM", "Multimedia"),
    cat("cs.MS", "Mathematical Software"),
    cat("cs.NA", "Numerical Analysis"),
    cat("cs.NE", "Neural and Evolutionary Computing"),
    cat("cs.NI", "Networking and Internet Architecture"),
    cat("cs.OH", "Other Computer Science"),
    cat("cs.OS", "Operating Systems"),
    cat("cs.PF", "Performance"),
    cat("cs.PL", "Programming Languages"),
    cat("cs.RO", "Robotics"),
    cat("cs.SC", "Symbolic Computation"),
    cat("cs.SD", "Sound"),
    cat("cs.SE", "Software Engineering"),
    cat("cs.SI", "Social and Information Networks"),
    cat("cs.SY", "Systems and Control"),
    cat("econ.EM", "Econometrics"),
    cat("econ.GN", "General Economics"),
    cat("econ.TH", "Theoretical Economics"),
    cat("eess.AS", "Audio and Speech Processing"),
    cat("eess.IV", "Image and Video Processing"),
    cat("eess.SP", "Signal Processing"),
    cat("eess.SY", "Systems and Control"),
    cat("gr-qc", "General Relativity and Quantum Cosmology"),
    cat("hep-ex", "High Energy Physics - Experiment"),
    cat("hep-lat", "High Energy Physics - Lattice"),
    cat("hep-ph", "High Energy Physics - Phenomenology"),
    cat("hep-th", "High Energy Physics - Theory"),
    cat("math-ph", "Mathematical Physics"),
    cat("math.AC", "Commutative Algebra"),
    cat("math.AG", "Algebraic Geometry"),
    cat("math.AP", "Analysis of PDEs"),
    cat("math.AT", "Algebraic Topology"),
    cat("math.CA", "Classical Analysis and ODEs"),
    cat("math.CO", "Combinatorics"),
    cat("math.CT", "Category Theory"),
    cat("math.CV", "Complex Variables"),
    cat("math.DG", "Differential Geometry"),
    cat("math.DS", "Dynamical Systems"),
    cat("math.FA", "Functional Analysis"),
    cat("math.GM", "General Mathematics"),
    cat("math.GN", "General Topology"),
    cat("math.GR", "Group Theory"),
    cat("math.GT", "Geometric Topology"),
    cat("math.HO", "History and Overview"),
    cat("math.IT", "Information Theory"),
    cat("math.KT", "K-Theory and Homology"),
    cat("math.LO", "Logic"),
    cat("math.MG", "Metric Geometry"),
    cat("math.MP", "Mathematical Physics"),
    cat("math.NA", "Numerical Analysis"),
    cat("math.NT", "Number Theory"),
    cat("math.OA", "Operator Algebras"),
    cat("math.OC", "Optimization and Control"),
    cat("math.PR", "Probability"),
    cat("math.QA", "Quantum Algebra"),
    cat("math.RA", "Rings and Algebras"),
    cat("math.RT", "Representation Theory"),
    cat("math.SG", "Symplectic Geometry"),
    cat("math.SP", "Spectral Theory"),
    cat("math.ST", "Statistics Theory"),
    cat("nlin.AO", "Adaptation and Self-Organizing Systems"),
    cat("nlin.CD", "Chaotic Dynamics"),
    cat("nlin.CG", "Cellular Automata and Lattice Gases"),
    cat("nlin.PS", "Pattern Formation and Solitons"),
    cat("nlin.SI", "Exactly Solvable and Integrable Systems"),
    cat("nucl-ex", "Nuclear Experiment"),
    cat("nucl-th", "Nuclear Theory"),
    cat("physics.acc-ph", "Accelerator Physics"),
    cat("physics.ao-ph", "Atmospheric and Oceanic Physics"),
    cat("physics.app-ph", "Applied Physics"),
    cat("physics.atm-clus", "Atomic and Molecular Clusters"),
    cat("physics.atom-ph", "Atomic Physics"),
    cat("physics.bio-ph", "Biological Physics"),
    cat("physics.chem-ph", "Chemical Physics"),
    cat("physics.class-ph", "Classical Physics"),
    cat("physics.comp-ph", "Computational Physics"),
    cat(
        "physics.data-an",
        "Data Analysis, Statistics and Probability",
    ),
    cat("physics.ed-ph", "Physics Education"),
    cat("physics.flu-dyn", "Fluid Dynamics"),
    cat("physics.gen-ph", "General Physics"),
    cat("physics.geo-ph", "Geophysics"),
    cat("physics.hist-ph", "History and Philosophy of Physics"),
    cat("physics.ins-det", "Instrumentation and Detectors"),
    cat("physics.med-ph", "Medical Physics"),
    cat("physics.optics", "Optics"),
    cat("physics.plasm-ph", "Plasma Physics"),
    cat("physics.pop-ph", "Popular Physics"),
    cat("physics.soc-ph", "Physics and Society"),
    cat("physics.space-ph", "Space Physics"),
    cat("q-bio.BM", "Biomolecules"),
    cat("q-bio.CB", "Cell Behavior"),
    cat("q-bio.GN", "Genomics"),
    cat("q-bio.MN", "Molecular Networks"),
    cat("q-bio.NC", "Neurons and Cognition"),
    cat("q-bio.OT", "Other Quantitative Biology"),
    cat("q-bio.PE", "Populations and Evolution"),
    cat("q-bio.QM", "Quantitative Methods"),
    cat("q-bio.SC", "Subcellular Processes"),
    cat("q-bio.TO", "Tissues and Organs"),
    cat("q-fin.CP", "Computational Finance"),
    cat("q-fin.EC", "Economics"),
    cat("q-fin.GN", "General Finance"),
    cat("q-fin.MF", "Mathematical Finance"),
    cat("q-fin.PM", "Portfolio Management"),
    cat("q-fin.PR", "Pricing of Securities"),
    cat("q-fin.RM", "Risk Management"),
    cat("q-fin.ST", "Statistical Finance"),
    cat("q-fin.TR", "Trading and Market Microstructure"),
    cat("quant-ph", "Quantum Physics"),
    cat("stat.AP", "Applications"),
    cat("stat.CO", "Computation"),
    cat("stat.ME", "Methodology"),
    cat("stat.ML", "Machine Learning"),
    cat("stat.OT", "Other Statistics"),
    cat("stat.TH", "Statistics Theory"),
];

/// The full name of an arXiv category code (`cs.DC` -> "Distributed, Parallel, and Cluster Computing"),
/// or `None` when the code is not in the table. Exact, case-sensitive match on the code.
pub fn category_name(code: &str) -> Option<&'static str> {
    CATEGORIES
        .binary_search_by(|c| c.code.cmp(code))
        .ok()
        .map(|i| CATEGORIES[i].name)
}

/// The archive group a code belongs to, for grouping subject pages: e.g. "Computer Science" for cs.*,
/// "Electrical Engineering and Systems Science" for eess.*, "Physics" for physics.*, astro-ph*, cond-mat*, gr-qc,
/// hep-*, math-ph, nlin.*, nucl-*, quant-ph; "Mathematics" for math.*; "Quantitative Biology" q-bio.*;
/// "Quantitative Finance" q-fin.*; "Statistics" stat.*; "Economics" econ.*. None for unknown prefixes.
///
/// The group is decided by the archive, i.e. the part of the code before the
/// first `.` (or the whole code when it has no `.`), matched exactly and
/// case-sensitively; the subcategory itself is not checked against the table.
pub fn category_group(code: &str) -> Option<&'static str> {
    let archive = code.split_once('.').map_or(code, |(archive, _)| archive);
    let group = match archive {
        "cs" => "Computer Science",
        "econ" => "Economics",
        "eess" => "Electrical Engineering and Systems Science",
        "math" => "Mathematics",
        "astro-ph" | "cond-mat" | "gr-qc" | "hep-ex" | "hep-lat" | "hep-ph" | "hep-th"
        | "math-ph" | "nlin" | "nucl-ex" | "nucl-th" | "physics" | "quant-ph" => "Physics",
        "q-bio" => "Quantitative Biology",
        "q-fin" => "Quantitative Finance",
        "stat" => "Statistics",
        _ => return None,
    };
    Some(group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_strictly_sorted_by_code() {
        for pair in CATEGORIES.windows(2) {
            assert!(
                pair[0].code.as_bytes() < pair[1].code.as_bytes(),
                "{} must sort strictly before {}",
                pair[0].code,
                pair[1].code
            );
        }
    }

    #[test]
    fn table_is_complete_enough() {
        assert!(CATEGORIES.len() >= 150, "only {} entries", CATEGORIES.len());
        let count = |prefix: &str| {
            CATEGORIES
                .iter()
                .filter(|c| c.code.starts_with(prefix))
                .count()
        };
        assert_eq!(count("cs."), 40);
        assert_eq!(count("econ."), 3);
        assert_eq!(count("eess."), 4);
        assert_eq!(count("math."), 32);
        assert_eq!(count("astro-ph."), 6);
        assert_eq!(count("cond-mat."), 9);
        assert_eq!(count("nlin."), 5);
        assert_eq!(count("physics."), 22);
        assert_eq!(count("q-bio."), 10);
        assert_eq!(count("q-fin."), 9);
        assert_eq!(count("stat."), 6);
    }

    #[test]
    fn every_entry_is_well_formed_and_has_a_group() {
        for c in CATEGORIES {
            assert!(!c.code.is_empty() && !c.name.is_empty(), "{c:?}");
            assert_eq!(c.name.trim(), c.name, "{c:?}");
            assert!(category_group(c.code).is_some(), "no group for {}", c.code);
            assert_eq!(category_name(c.code), Some(c.name));
        }
    }

    #[test]
    fn known_codes_map_to_official_names() {
        let cases = [
            ("cs.DC", "Distributed, Parallel, and Cluster Computing"),
            ("cs.CL", "Computation and Language"),
            ("cs.LG", "Machine Learning"),
            ("eess.SY", "Systems and Control"),
            ("cs.AR", "Hardware Architecture"),
            ("cs.AI", "Artificial Intelligence"),
            ("q-fin.GN", "General Finance"),
            (
                "astro-ph.IM",
                "Instrumentation and Methods for Astrophysics",
            ),
            ("math.MP", "Mathematical Physics"),
            ("math-ph", "Mathematical Physics"),
            ("physics.soc-ph", "Physics and Society"),
            ("astro-ph", "Astrophysics"),
            ("cond-mat", "Condensed Matter"),
            ("cond-mat.mes-hall", "Mesoscale and Nanoscale Physics"),
            ("hep-th", "High Energy Physics - Theory"),
            ("quant-ph", "Quantum Physics"),
            ("stat.ML", "Machine Learning"),
            ("q-bio.NC", "Neurons and Cognition"),
            ("econ.EM", "Econometrics"),
        ];
        for (code, name) in cases {
            assert_eq!(category_name(code), Some(name), "{code}");
        }
    }

    #[test]
    fn unknown_codes_have_no_name() {
        for code in [
            "cs.XX", "", "CS.DC", "cs.dc", "cs", "physics", " cs.DC", "cs.DC ",
        ] {
            assert_eq!(category_name(code), None, "{code:?}");
        }
    }

    #[test]
    fn groups_by_archive() {
        let cases = [
            ("cs.DC", "Computer Science"),
            ("econ.TH", "Economics"),
            ("eess.SP", "Electrical Engineering and Systems Science"),
            ("math.AG", "Mathematics"),
            ("math.MP", "Mathematics"),
            ("math-ph", "Physics"),
            ("astro-ph", "Physics"),
            ("astro-ph.GA", "Physics"),
            ("cond-mat", "Physics"),
            ("cond-mat.str-el", "Physics"),
            ("gr-qc", "Physics"),
            ("hep-ex", "Physics"),
            ("hep-lat", "Physics"),
            ("nlin.CD", "Physics"),
            ("nucl-th", "Physics"),
            ("physics.optics", "Physics"),
            ("quant-ph", "Physics"),
            ("q-bio.GN", "Quantitative Biology"),
            ("q-fin.GN", "Quantitative Finance"),
            ("stat.ME", "Statistics"),
        ];
        for (code, group) in cases {
            assert_eq!(category_group(code), Some(group), "{code}");
        }
    }

    #[test]
    fn unknown_archives_have_no_group() {
        for code in ["", "CS.DC", "bio.XX", "hep", "q-econ.GN", ".DC"] {
            assert_eq!(category_group(code), None, "{code:?}");
        }
    }
}
