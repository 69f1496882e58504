//! `profilegen init`: a new site to start from.

use std::fs;
use std::io;
use std::path::Path;

/// The sample configuration written by `init`.
pub const SAMPLE_CONFIG: &str = "# profilegen site configuration. Every key is optional.
title: My research group
description: Publications of our group's members.
# base_url: https://example.org/group/
language: en
# authors:
#   ada-lovelace:
#     affiliation: Analytical Engine Society
#     homepage: https://example.org/ada
#     orcid: 0000-0002-1825-0097
";

/// The sample record file written by `init`.
pub const SAMPLE_RECORDS: &str = "arXiv subjects

Ada Lovelace

Publications and source records attributed to Ada Lovelace.

1 recordLinked to original sources

arXiv2026

Notes on the Analytical Engine

We describe how the engine computes Bernoulli numbers, with $B_n$ given by a recurrence.

cs.MS\u{2197}";

/// The sample README written by `init`.
pub const SAMPLE_README: &str = "# My research group

Built with profilegen: `profilegen build` writes the site to `public/`.

- Author record files go in `content/records/*.txt`, one per author.
- Optional bios: `content/authors/<author-slug>.md`; extra pages: `content/pages/*.md`.
- To change the look, put a template with the same file name as a default one
  (for example `templates/author.html` or `templates/base.html`) in `templates/`;
  it overrides the built-in one. Files in `static/` are copied to the output as they are.
";

/// Creates a new site in `dir`: configuration, one sample record file and a README.
/// Refuses a folder that already has files in it.
pub fn init_site(dir: &Path) -> io::Result<()> {
    if dir.exists() && fs::read_dir(dir)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} is not empty; choose a new or empty folder",
                dir.display()
            ),
        ));
    }
    let with_path = |path: &Path| {
        let path = path.to_path_buf();
        move |err: io::Error| io::Error::new(err.kind(), format!("{}: {err}", path.display()))
    };
    let records = dir.join("content/records");
    fs::create_dir_all(&records).map_err(with_path(&records))?;
    for (path, text) in [
        (dir.join(crate::config::CONFIG_FILE), SAMPLE_CONFIG),
        (records.join("ada-lovelace.txt"), SAMPLE_RECORDS),
        (dir.join("README.md"), SAMPLE_README),
        (dir.join(".gitignore"), "/public\n/.profilegen\n"),
    ] {
        fs::write(&path, text).map_err(with_path(&path))?;
    }
    Ok(())
}
