//! profilegen: a static-site generator for scholarly profiles.
//!
//! The pipeline, one module per stage, each handing the next a plain data structure:
//!
//! 1. [`records`] parses author record files into [`records::RecordFile`]s;
//! 2. [`graph`] links them into one [`graph::SiteGraph`] of authors and papers;
//! 3. [`plan`] decides every page, its URL and its (small) template context;
//! 4. [`render`] renders the planned outputs with Tera, in parallel;
//! 5. [`output`] writes the files, atomically and only where bytes changed.
//!
//! [`site`] runs the pipeline for `build` and `check`; [`config`] and [`content`] read
//! the site configuration, author bios and extra pages; [`cache`] lets a build render
//! only what changed, and [`memo`] lets a long-running process reuse its last build's
//! work. [`watch`], [`serve`] and [`live`] make up `serve` and
//! `build --watch`; [`cli`] parses the command line and calls in.

pub mod cache;
pub mod cite;
pub mod cli;
pub mod coauthor_graph;
pub mod config;
pub mod content;
pub mod diagnostics;
pub mod graph;
pub mod init;
pub mod live;
pub mod memo;
pub mod normalize;
pub mod output;
pub mod plan;
pub mod records;
pub mod render;
pub mod serve;
pub mod site;
pub mod slug;
pub mod taxonomy;
pub mod tex;
pub mod watch;
