//! profilegen: a static-site generator for scholarly profiles.
//!
//! The modules follow the data, each stage handing the next plain data and never
//! reaching back (`tests/module_graph.rs` holds the layers and checks them):
//!
//! 1. shared leaves: [`hash`], [`reuse`], [`diagnostics`], [`normalize`], [`slug`],
//!    [`taxonomy`], [`tex`] (TeX to HTML/MathML and plain text, and HTML escaping),
//!    [`url`] (percent-encoding), [`cite`] (BibTeX, RIS, CSL-JSON) and
//!    [`coauthor_graph`] (the co-author SVG);
//! 2. reading sources: [`sources`] reads a site root with [`config`], [`records`] and
//!    [`content`], skipping what [`ignore`] says is not part of a site (hidden,
//!    temporary and editor files: the one rule the watcher follows too);
//! 3. link: [`graph`] links record files into one [`graph::SiteGraph`];
//! 4. plan: [`plan`] decides every output and its path, and gathers what they show into
//!    a read-only [`plan::SiteIndex`];
//! 5. search: [`search`] builds the static search index from the site index;
//! 6. render: [`render`] makes each output's context from the index (builders by kind
//!    of output, each declaring what it reads: [`render::context::reads`]) and renders
//!    it with Tera, in parallel;
//! 7. output: [`output`] writes the files, atomically and only where bytes changed
//!    (or a whole new generation, switched to in one rename: [`output::generations`]);
//! 8. build: [`build`] runs the stages for `build` and `check`, decides with the build
//!    cache what must be rendered again, and carries work from one build to the next;
//! 9. [`watch`], [`serve`] and [`live`] make up `serve` and `build --watch`;
//! 10. [`cli`] parses the command line, with [`init`] for `profilegen init`.

pub mod build;
pub mod cite;
pub mod cli;
pub mod coauthor_graph;
pub mod config;
pub mod content;
pub mod diagnostics;
pub mod graph;
pub mod hash;
pub mod identifiers;
pub mod identity;
pub mod ignore;
pub mod init;
pub mod kept_file;
pub mod live;
pub mod normalize;
pub mod output;
pub mod plan;
pub mod records;
pub mod render;
pub mod reuse;
pub mod search;
pub mod serve;
pub mod slug;
pub mod sources;
pub mod suggest;
pub mod taxonomy;
pub mod tex;
pub mod text_store;
pub mod threads;
pub mod url;
pub mod watch;
