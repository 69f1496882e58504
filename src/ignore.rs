//! Which files are not part of a site: hidden files and folders, and the temporary,
//! swap, backup and lock files that editors, browsers and the OS leave beside the files
//! they work on.
//!
//! The one rule serves everything that looks at a site's files: the build reading
//! `content/records`, `content/authors`, `content/pages`, `templates/` and `static/`,
//! and the watcher deciding which changes trigger a rebuild. So a file is either part of
//! the site (published or used, and its edits rebuild) or not (never read, and its edits
//! are never noticed), never one of those without the other.
//!
//! A **folder** is skipped whole, with everything inside it, when it is hidden: its name
//! starts with `.` (`.git`, `.profilegen`, `.idea`, `.vscode`, a `.drafts` folder kept
//! out of the site on purpose). `.well-known` is the one exception: it is a standard web
//! path (`security.txt`, ACME challenges) that a site ships from `static/`.
//!
//! A **file** is ignored when its name matches one of these patterns (suffixes compare
//! ignoring ASCII case, so `X.TMP` and `.ds_store` are ignored too):
//!
//! | pattern | why |
//! | --- | --- |
//! | `.*` | hidden files: `.DS_Store` (macOS Finder), `.#name` (Emacs lock), `.goutputstream-*` (GNOME's save-by-rename), `.name.swp` (vim), `.gitignore`, `.htaccess`, and the output folder's own `.profilegen-*` files |
//! | `*~` | backup copies (Emacs, vim's `backup`, gedit, Kate) |
//! | `#*#` | Emacs auto-save files (at least two characters, so a file named `#` is kept) |
//! | `4913` | the probe vim writes to test whether it may write in a folder |
//! | `*.swp`, `*.swo`, `*.swx`, `*.swn` | vim swap files (vim names them `.name.swp`, but other tools drop the dot) |
//! | `*.kate-swp` | Kate swap files |
//! | `*___jb_tmp___`, `*___jb_old___`, `*___jb_bak___` | JetBrains IDEs' safe-write copies |
//! | `*.tmp` | temporary files of many programs (office suites, downloaders, installers) |
//! | `*.crdownload`, `*.part` | downloads still in progress (Chrome; Firefox and others) |
//! | `*.crswap` | Chrome's copy of a file being saved through the File System Access API |
//! | `*.profilegen-tmp` | a file profilegen itself is still writing, before its atomic rename |
//!
//! Folder names are not matched against the file patterns: a folder called `backup~`
//! or `x.tmp` is part of the site like any other.

use std::ffi::OsStr;
use std::path::{Component, Path};

/// The one hidden folder that is part of a site.
pub const WELL_KNOWN: &str = ".well-known";

/// File name endings of temporary files, in lowercase (names are compared in
/// lowercase); see the module documentation for what makes each one.
const TEMPORARY_SUFFIXES: [&str; 13] = [
    ".swp",
    ".swo",
    ".swx",
    ".swn",
    ".kate-swp",
    "___jb_tmp___",
    "___jb_old___",
    "___jb_bak___",
    ".tmp",
    ".crdownload",
    ".part",
    ".crswap",
    ".profilegen-tmp",
];

/// Whether the file at `rel` is not part of the site: it is inside a skipped folder
/// ([`is_ignored_folder`]) or its own name is ignored ([`is_ignored_file`]). Empty, `.`
/// and `..` components are passed over, so `""` and `.` are not ignored.
///
/// Pass a path relative to the site root (or to one of its folders): with an absolute
/// path, a hidden folder above the root (such as `/tmp/.tmpXYZ`) makes everything
/// ignored.
pub fn is_ignored(rel: &Path) -> bool {
    let mut names = normal_names(rel).peekable();
    while let Some(name) = names.next() {
        let is_last = names.peek().is_none();
        if is_ignored_name(name, !is_last) {
            return true;
        }
    }
    false
}

/// Whether the folder at `rel`, or one that it is inside, is skipped whole; see
/// [`is_ignored`] for how `rel` is taken.
pub fn is_in_ignored_folder(rel: &Path) -> bool {
    normal_names(rel).any(is_ignored_folder)
}

/// Whether an entry of a folder, a folder or a file by `is_folder`, is not part of the
/// site: [`is_ignored_folder`] or [`is_ignored_file`]. For walking a folder tree, where
/// a skipped folder is not entered.
pub fn is_ignored_name(name: &OsStr, is_folder: bool) -> bool {
    if is_folder {
        is_ignored_folder(name)
    } else {
        is_ignored_file(name)
    }
}

/// Whether an entry met while walking a site folder with walkdir is not part of the
/// site, by [`is_ignored_name`]; the folder walked itself (depth 0) never is. For
/// `filter_entry`, which then neither yields a skipped folder nor enters it.
pub fn is_ignored_entry(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0 && is_ignored_name(entry.file_name(), entry.file_type().is_dir())
}

/// Whether a folder of this name is skipped whole: it is hidden and not [`WELL_KNOWN`].
pub fn is_ignored_folder(name: &OsStr) -> bool {
    is_hidden(name) && name != WELL_KNOWN
}

/// Whether a file of this name is not part of the site: it is hidden, or an editor's,
/// browser's or the OS's temporary, swap, backup or lock file (the table in the module
/// documentation).
pub fn is_ignored_file(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    let lower = name.to_ascii_lowercase();
    name.starts_with('.')
        || name.ends_with('~')
        || (name.len() >= 2 && name.starts_with('#') && name.ends_with('#'))
        || name == "4913"
        || TEMPORARY_SUFFIXES
            .iter()
            .any(|suffix| lower.ends_with(suffix))
}

/// Whether the name starts with a dot.
fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".")
}

/// The names in `path`, without root, prefix, `.` and `..` components.
fn normal_names(path: &Path) -> impl Iterator<Item = &OsStr> {
    path.components().filter_map(|component| match component {
        Component::Normal(name) => Some(name),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_files() {
        let ignored = [
            "x.txt.swp",
            ".x.txt.swp",
            "content/records/.x.txt.swp",
            "a.swx",
            "a.swo",
            "a.swn",
            "A.SWP",
            "a~",
            "notes.md~",
            "~",
            ".#notes.md",
            ".#lock",
            "#notes.md#",
            "#autosave#",
            "##",
            "4913",
            "content/records/4913",
            "templates/base.html___jb_tmp___",
            "templates/base.html___jb_old___",
            "templates/base.html___jb_bak___",
            "x.tmp",
            "x.TMP",
            "A.TMP",
            "static/x.tmp",
            ".DS_Store",
            "static/.ds_store",
            "templates/macros/.DS_Store",
            "paper.pdf.crdownload",
            "paper.pdf.part",
            "notes.md.kate-swp",
            ".goutputstream-ABC123",
            "x.crswap",
            "public/.index.html.profilegen-tmp",
            "public/index.html.profilegen-tmp",
            "static/.htaccess",
            ".gitignore",
            "static/.well-known",
        ];
        for name in ignored {
            assert!(is_ignored(Path::new(name)), "{name} should be ignored");
        }
    }

    #[test]
    fn files_under_hidden_folders_are_ignored() {
        for path in [
            ".git/config",
            "content/.git/HEAD",
            ".profilegen/cache.bin",
            "static/.hidden/a.css",
            "content/records/.drafts/draft.txt",
            "templates/.idea/workspace.xml",
            "static/.well-known/.hidden/key",
        ] {
            assert!(is_ignored(Path::new(path)), "{path} should be ignored");
        }
        assert!(is_in_ignored_folder(Path::new("static/.git")));
        assert!(is_in_ignored_folder(Path::new(".git/objects")));
        assert!(!is_in_ignored_folder(Path::new("static/.well-known")));
        assert!(!is_in_ignored_folder(Path::new("static/x.tmp")));
        assert!(!is_in_ignored_folder(Path::new("content")));
    }

    #[test]
    fn site_files_are_kept() {
        let kept = [
            "a.txt",
            "notes.md",
            "4913.txt",
            "content/records/49130",
            "style.css",
            "content/records/a.txt",
            "./content/pages/about.md",
            "static/.well-known/security.txt",
            "swp",
            "a.swp.txt",
            "tmp",
            "tmp.txt",
            "partner.txt",
            "x.tmpl",
            "#",
            "#a",
            "a#",
            "a~b",
            "static/backup~/a.css",
            "static/x.tmp/a.css",
            "",
            ".",
            "..",
            "./.",
            "../a.txt",
        ];
        for name in kept {
            assert!(!is_ignored(Path::new(name)), "{name} should not be ignored");
        }
    }

    #[test]
    fn entries_by_kind() {
        let name = OsStr::new;
        assert!(is_ignored_name(name(".git"), true));
        assert!(is_ignored_name(name(".git"), false));
        assert!(!is_ignored_name(name(".well-known"), true));
        assert!(is_ignored_name(name(".well-known"), false));
        assert!(!is_ignored_name(name("x.tmp"), true));
        assert!(is_ignored_name(name("x.tmp"), false));
        assert!(!is_ignored_name(name("a~"), true));
        assert!(is_ignored_name(name("a~"), false));
        assert!(is_ignored_folder(name(".")));
        assert!(is_ignored_file(name("..")));
        assert!(!is_ignored_file(name("index.html")));
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        assert!(is_ignored_file(OsStr::from_bytes(b"\xff.tmp")));
        assert!(is_ignored_folder(OsStr::from_bytes(b".\xff")));
        assert!(!is_ignored_file(OsStr::from_bytes(b"\xff.txt")));
    }
}
