//! Co-author graphs: an author's co-authors drawn at build time as inline SVG.
//!
//! [`coauthor_svg`] draws the author at the centre and up to [`MAX_NODES`] co-authors
//! around it, most-shared first; more co-authors than that are summarized by one
//! "+ N more" node that links to the page's full co-author list. Everything is decided
//! here, at build time: the page needs no JavaScript.
//!
//! # Layout
//!
//! * Up to [`SINGLE_RING_MAX`] nodes sit on one ring, evenly spaced clockwise from
//!   the top. With more, the most-shared sit on an inner ring and the rest (and the
//!   "+ N more" node, last) on an outer ring that starts at the top. Each inner node sits
//!   in a gap between two outer nodes, so the edges to the outer ring pass between the
//!   inner nodes and never through them.
//! * Edge stroke width and node radius grow with the logarithm of the number of shared
//!   papers, within fixed bounds ([`edge_width`], [`node_radius`]).
//! * Labels sit outside their node, away from the centre: `text-anchor` is `start` on
//!   the right, `end` on the left and `middle` near the top and bottom. Names longer than
//!   [`LABEL_CHARS`] are shortened with "…"; the node's `<title>` has the full name.
//! * The rings start small and grow, in fixed steps, until no label overlaps another
//!   label or a node (label widths are estimated from the characters, generously). The
//!   `viewBox` holds everything drawn plus a margin, and is centred on the centre node
//!   horizontally, so the author sits in the middle of the page.
//! * Every coordinate is rounded to one decimal by one fixed formatter, and nothing is
//!   random or depends on hashing, so the same input gives the same bytes.
//!
//! # Markup and styling
//!
//! The `<svg>` has `class="coauthor-graph"`, a `viewBox`, and `width` and `height`
//! equal to the `viewBox` size, so one user unit is one CSS pixel unless a stylesheet
//! says otherwise (labels are `font-size="13"` user units). Colours come only from the
//! theme's CSS (`static/style.css`), by element and class: the edges are the `<path>`s
//! of `g.edges` (`edge-more` for the edge to the "+ N more" node), each co-author is a
//! `<circle>` and a `<text>` label inside an `<a>` (`more` on the "+ N more" node's),
//! and the author at the centre has `node-center` and `label-center`; the label halo
//! (`paint-order`) is the stylesheet's too. Edge stroke widths are presentation
//! attributes, and labels name their `text-anchor` unless it is SVG's default
//! (`start`); there is no `style` attribute. The markup is kept small, as it is on
//! every author page with co-authors: one `<path>` for each run of edges of one width,
//! and no attribute that repeats a default or what the stylesheet says by element.
//!
//! Each co-author node is an SVG 2 `<a href>` holding a `<title>` (full name and shared
//! papers, which is also the link's accessible name), the circle and the visible label;
//! the links are keyboard-focusable. The `<svg>` is `role="group"`, named by its
//! `<title>` and described by its `<desc>`. It is deliberately not `role="img"`: an image's
//! children are presentational, which would hide the focusable links from assistive
//! technology while keeping them in the tab order.
//!
//! All input text is escaped (`& < > " '`), control characters are dropped and runs of
//! white space become one space. Characters that are never valid in a URL (spaces,
//! quotes, angle brackets and the like) are percent-encoded in hrefs. Hrefs are
//! otherwise used as given: they are the site's own links, not user input.

use std::f64::consts::PI;
use std::fmt::Write as _;

use percent_encoding::{percent_encode_byte, utf8_percent_encode};

use crate::url::NOT_IN_URL;

/// The most co-authors drawn; the rest are summarized by one "+ N more" node.
pub const MAX_NODES: usize = 24;

/// The most nodes (the "+ N more" node included) drawn on a single ring.
pub const SINGLE_RING_MAX: usize = 16;

/// Labels longer than this many characters are shortened with "…".
pub const LABEL_CHARS: usize = 18;

/// One co-author as the graph shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphNode<'a> {
    /// The co-author's name, as shown.
    pub name: &'a str,
    /// The link to the co-author's page.
    pub href: &'a str,
    /// How many papers the co-author shares with the centre author.
    pub shared: usize,
}

/// Label font size, in user units.
const FONT: f64 = 13.0;
/// Radius of the centre node.
const CENTER_R: f64 = 16.0;
/// Distance between a node's circle and its label.
const LABEL_GAP: f64 = 5.0;
/// Space kept free around labels and circles when checking for overlaps.
const CLEARANCE: f64 = 4.0;
/// Margin around everything drawn, inside the `viewBox`.
const MARGIN: f64 = 8.0;
/// How much a ring grows per layout step.
const GROW_STEP: f64 = 4.0;
/// The most layout steps; after that the layout is used as it is.
const MAX_STEPS: usize = 300;
/// The centre author's name is shortened beyond this many characters.
const CENTER_LABEL_CHARS: usize = 28;
/// The most inner-ring nodes.
const INNER_MAX: usize = 8;

/// The SVG of an author's co-author graph, to insert into an HTML5 page, or `None`
/// when there are no co-authors.
///
/// `center` is the author's name. `coauthors` are sorted most-shared first (ties by
/// name), as in the page's text list; the first [`MAX_NODES`] are drawn, and any more
/// are summarized by a "+ N more" node linking to `more_href` (e.g.
/// `"#coauthors-heading"`). See the [module documentation](self) for the layout and the
/// markup. Never panics, whatever the input.
pub fn coauthor_svg(center: &str, coauthors: &[GraphNode], more_href: &str) -> Option<String> {
    if coauthors.is_empty() {
        return None;
    }
    let drawn = &coauthors[..coauthors.len().min(MAX_NODES)];
    let hidden = coauthors.len() - drawn.len();

    let mut slots: Vec<Slot> = drawn
        .iter()
        .map(|c| {
            let name = display_name(c.name);
            Slot::new(
                shorten(&name, LABEL_CHARS),
                format!("{name}, {}", papers(c.shared, "shared ")),
                clean_href(c.href),
                c.shared,
                false,
            )
        })
        .collect();
    if hidden > 0 {
        slots.push(Slot::new(
            format!("+ {hidden} more"),
            format!("{hidden} more co-authors: see the full list"),
            clean_href(more_href),
            1,
            true,
        ));
    }

    let center_name = display_name(center);
    let center_label = shorten(&center_name, CENTER_LABEL_CHARS);
    let layout = Layout::new(&slots, &center_label);
    Some(render(
        &layout,
        &slots,
        &center_name,
        &center_label,
        &describe(coauthors, hidden),
    ))
}

/// Stroke width of the edge to a co-author with `shared` papers: `1 + 1.5·ln(shared)`,
/// between 1 and 7.
pub fn edge_width(shared: usize) -> f64 {
    (1.0 + 1.5 * (shared.max(1) as f64).ln()).clamp(1.0, 7.0)
}

/// Radius of the node of a co-author with `shared` papers: `7 + 2·ln(shared)`, between
/// 7 and 15.
pub fn node_radius(shared: usize) -> f64 {
    (7.0 + 2.0 * (shared.max(1) as f64).ln()).clamp(7.0, 15.0)
}

/// One node to draw: a co-author or the "+ N more" node.
struct Slot {
    /// The visible label, unescaped.
    label: String,
    /// The full text of the node's `<title>`, unescaped.
    title: String,
    /// The link, cleaned but not yet escaped.
    href: String,
    /// Circle radius.
    r: f64,
    /// Edge stroke width.
    stroke: f64,
    /// Whether this is the "+ N more" node.
    more: bool,
    /// Estimated width of the label, measured once for every layout step.
    width: f64,
}

impl Slot {
    /// The node of a co-author with `shared` papers (1 for the "+ N more" node).
    fn new(label: String, title: String, href: String, shared: usize, more: bool) -> Slot {
        Slot {
            width: text_width(&label),
            label,
            title,
            href,
            r: node_radius(shared),
            stroke: edge_width(shared),
            more,
        }
    }
}

/// How a label is anchored horizontally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Start,
    Middle,
    End,
}

/// An axis-aligned box.
#[derive(Debug, Clone, Copy)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn overlaps(&self, other: &Rect, clearance: f64) -> bool {
        self.x0 < other.x1 + clearance
            && other.x0 < self.x1 + clearance
            && self.y0 < other.y1 + clearance
            && other.y0 < self.y1 + clearance
    }

    /// Whether the box comes within `clearance` of the circle at (`cx`, `cy`), radius `r`.
    fn touches_circle(&self, cx: f64, cy: f64, r: f64, clearance: f64) -> bool {
        let nx = cx.clamp(self.x0, self.x1);
        let ny = cy.clamp(self.y0, self.y1);
        let reach = r + clearance;
        (cx - nx).powi(2) + (cy - ny).powi(2) < reach * reach
    }
}

/// A placed label.
#[derive(Debug, Clone, Copy)]
struct Label {
    /// Anchor point (`x`) and baseline (`y`).
    x: f64,
    y: f64,
    anchor: Anchor,
    /// Estimated extent of the text.
    rect: Rect,
}

/// A placed node and its label.
#[derive(Debug, Clone, Copy)]
struct Placed {
    x: f64,
    y: f64,
    /// 0 for the inner (or only) ring, 1 for the outer ring.
    ring: u8,
    label: Label,
}

/// Positions of everything drawn.
struct Layout {
    nodes: Vec<Placed>,
    center_label: Label,
    view: Rect,
}

impl Layout {
    /// Lays out `slots` around the centre, growing the rings until labels are clear.
    fn new(slots: &[Slot], center_label: &str) -> Layout {
        let count = slots.len();
        let inner = if count <= SINGLE_RING_MAX {
            count
        } else {
            (count / 3).clamp(4, INNER_MAX)
        };
        let center_width = text_width(center_label) * 1.1;
        let center = Label {
            x: 0.0,
            y: CENTER_R + LABEL_GAP + 0.8 * FONT,
            anchor: Anchor::Middle,
            rect: Rect {
                x0: -center_width / 2.0,
                y0: CENTER_R + LABEL_GAP,
                x1: center_width / 2.0,
                y1: CENTER_R + LABEL_GAP + 1.05 * FONT,
            },
        };
        // Start from rings with room for the circles alone, then grow.
        let spacing = 2.0 * 15.0 + 12.0;
        let least = if inner == count { 90.0 } else { 95.0 };
        let mut r1 = (inner as f64 * spacing / (2.0 * PI)).max(least);
        let mut r2 = ((count - inner) as f64 * spacing / (2.0 * PI)).max(r1 + 60.0);
        let directions = directions(count, inner);
        let mut nodes = place(slots, &directions, r1, r2);
        for _ in 0..MAX_STEPS {
            match worst_overlap(slots, &nodes, &center) {
                None => break,
                Some(0) => {
                    r1 += GROW_STEP;
                    r2 += GROW_STEP;
                    nodes = place(slots, &directions, r1, r2);
                }
                Some(_) => {
                    // Only the outer ring moves: the inner nodes stay where they are.
                    r2 += GROW_STEP;
                    let outer = nodes.iter_mut().zip(slots.iter().zip(&directions));
                    for (node, (slot, direction)) in outer.filter(|(_, (_, d))| d.2 == 1) {
                        *node = place_node(slot, *direction, r1, r2);
                    }
                }
            }
        }

        let mut view = Rect {
            x0: -CENTER_R,
            y0: -CENTER_R,
            x1: CENTER_R,
            y1: CENTER_R,
        };
        let mut include = |r: Rect| {
            view.x0 = view.x0.min(r.x0);
            view.y0 = view.y0.min(r.y0);
            view.x1 = view.x1.max(r.x1);
            view.y1 = view.y1.max(r.y1);
        };
        include(center.rect);
        for (node, slot) in nodes.iter().zip(slots) {
            let r = slot.r + 2.0;
            include(Rect {
                x0: node.x - r,
                y0: node.y - r,
                x1: node.x + r,
                y1: node.y + r,
            });
            include(node.label.rect);
        }
        // Centred on the centre node horizontally, so it sits in the middle of the page;
        // whole user units, so `width` and `height` match the `viewBox` exactly.
        let half = (view.x1.max(-view.x0) + MARGIN).ceil();
        let view = Rect {
            x0: -half,
            y0: (view.y0 - MARGIN).floor(),
            x1: half,
            y1: (view.y1 + MARGIN).ceil(),
        };
        Layout {
            nodes,
            center_label: center,
            view,
        }
    }
}

/// The direction of each node from the centre, as a unit vector (`ux`, `uy`), with its
/// ring: the first `inner` nodes on the inner ring (0), the rest on the outer one (1).
/// The same at every layout step; only the radii change.
fn directions(count: usize, inner: usize) -> Vec<(f64, f64, u8)> {
    let outer = count - inner;
    (0..count)
        .map(|i| {
            let (angle, ring) = if outer == 0 {
                (2.0 * PI * i as f64 / inner as f64, 0)
            } else if i < inner {
                // The gap after outer node `gap`, spreading the inner nodes evenly.
                let gap = (2 * i * outer + inner) / (2 * inner);
                (2.0 * PI * (gap as f64 + 0.5) / outer as f64, 0)
            } else {
                (2.0 * PI * (i - inner) as f64 / outer as f64, 1)
            };
            // Clockwise from the top; SVG's y axis points down.
            (angle.sin(), -angle.cos(), ring)
        })
        .collect()
}

/// Places the nodes in their `directions`: ring 0 at radius `r1`, ring 1 at `r2`.
fn place(slots: &[Slot], directions: &[(f64, f64, u8)], r1: f64, r2: f64) -> Vec<Placed> {
    slots
        .iter()
        .zip(directions)
        .map(|(slot, &direction)| place_node(slot, direction, r1, r2))
        .collect()
}

/// Places one node in its `direction` (`ux`, `uy`, ring), as [`place`] does.
fn place_node(slot: &Slot, (ux, uy, ring): (f64, f64, u8), r1: f64, r2: f64) -> Placed {
    let radius = if ring == 0 { r1 } else { r2 };
    let (x, y) = (radius * ux, radius * uy);
    Placed {
        x,
        y,
        ring,
        label: place_label(x, y, ux, uy, slot.r, slot.width),
    }
}

/// Places the label of the node at (`x`, `y`), radius `r`, on the outward direction
/// (`ux`, `uy`), with text `width` wide.
fn place_label(x: f64, y: f64, ux: f64, uy: f64, r: f64, width: f64) -> Label {
    let anchor = if ux > 0.1 {
        Anchor::Start
    } else if ux < -0.1 {
        Anchor::End
    } else {
        Anchor::Middle
    };
    let at = |distance: f64| {
        let ax = x + distance * ux;
        // Centre the text on the anchor at the sides, above it at the top, below it at
        // the bottom.
        let baseline = y + distance * uy + FONT * (0.35 + 0.5 * uy);
        let (x0, x1) = match anchor {
            Anchor::Start => (ax, ax + width),
            Anchor::Middle => (ax - width / 2.0, ax + width / 2.0),
            Anchor::End => (ax - width, ax),
        };
        Label {
            x: ax,
            y: baseline,
            anchor,
            rect: Rect {
                x0,
                y0: baseline - 0.8 * FONT,
                x1,
                y1: baseline + 0.25 * FONT,
            },
        }
    };
    let mut distance = r + LABEL_GAP;
    let mut label = at(distance);
    // Near the diagonals a corner of the text can reach back over the circle.
    for _ in 0..40 {
        if !label.rect.touches_circle(x, y, r, 1.0) {
            break;
        }
        distance += 1.0;
        label = at(distance);
    }
    label
}

/// The ring that must grow to clear the worst overlap (0 for the inner or only ring,
/// 1 for the outer), or `None` when nothing overlaps.
fn worst_overlap(slots: &[Slot], nodes: &[Placed], center: &Label) -> Option<u8> {
    let mut worst: Option<u8> = None;
    let note =
        |worst: &mut Option<u8>, ring: u8| *worst = Some(worst.map_or(ring, |w| w.max(ring)));
    // Each node's circle and label in one box: two nodes whose boxes are further apart
    // than any check below reaches cannot clash, and most pairs are such.
    let boxes: Vec<Rect> = nodes
        .iter()
        .zip(slots)
        .map(|(node, slot)| Rect {
            x0: (node.x - slot.r).min(node.label.rect.x0),
            y0: (node.y - slot.r).min(node.label.rect.y0),
            x1: (node.x + slot.r).max(node.label.rect.x1),
            y1: (node.y + slot.r).max(node.label.rect.y1),
        })
        .collect();
    // The farthest any check reaches (circles within two clearances), with room to spare
    // for rounding.
    let reach = 2.0 * CLEARANCE + 1.0;
    for (i, (a, sa)) in nodes.iter().zip(slots).enumerate() {
        if worst == Some(1) {
            // The outer ring is as bad as it gets: nothing further changes the answer.
            break;
        }
        if a.label.rect.overlaps(&center.rect, CLEARANCE)
            || a.label.rect.touches_circle(0.0, 0.0, CENTER_R, CLEARANCE)
            || center.rect.touches_circle(a.x, a.y, sa.r, CLEARANCE)
        {
            note(&mut worst, a.ring);
        }
        for (j, (b, sb)) in nodes.iter().zip(slots).enumerate() {
            if i == j || !boxes[i].overlaps(&boxes[j], reach) {
                continue;
            }
            let ring = a.ring.max(b.ring);
            if a.label.rect.touches_circle(b.x, b.y, sb.r, CLEARANCE) {
                note(&mut worst, ring);
            }
            if i < j {
                let reach = sa.r + sb.r + 2.0 * CLEARANCE;
                if a.label.rect.overlaps(&b.label.rect, CLEARANCE)
                    || (a.x - b.x).powi(2) + (a.y - b.y).powi(2) < reach * reach
                {
                    note(&mut worst, ring);
                }
            }
        }
    }
    worst
}

/// Writes the `<svg>` element.
fn render(
    layout: &Layout,
    slots: &[Slot],
    center_name: &str,
    center_label: &str,
    description: &str,
) -> String {
    let v = &layout.view;
    let (width, height) = (v.x1 - v.x0, v.y1 - v.y0);
    let mut out = String::with_capacity(1024 + slots.len() * 400);
    // `write!` into a `String` cannot fail, so its results are ignored throughout.
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"coauthor-graph\" \
         viewBox=\"{} {} {} {}\" width=\"{}\" height=\"{}\" role=\"group\" font-size=\"{}\">",
        num(v.x0),
        num(v.y0),
        num(width),
        num(height),
        num(width),
        num(height),
        num(FONT),
    );
    let _ = writeln!(
        out,
        "<title>Co-author graph of {}</title>\n<desc>{}</desc>",
        escape(center_name),
        escape(description)
    );

    write_edges(&mut out, layout, slots);

    let _ = writeln!(
        out,
        "<g class=\"center\"><title>{}</title><circle class=\"node-center\" cx=\"0\" cy=\"0\" r=\"{}\"/>{}</g>",
        escape(center_name),
        num(CENTER_R),
        text_element(" class=\"label-center\"", &layout.center_label, center_label),
    );

    for (node, slot) in layout.nodes.iter().zip(slots) {
        let _ = writeln!(
            out,
            "<a href=\"{}\"{}><title>{}</title><circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>{}</a>",
            escape(&slot.href),
            if slot.more { " class=\"more\"" } else { "" },
            escape(&slot.title),
            num(node.x),
            num(node.y),
            num(slot.r),
            text_element("", &node.label, &slot.label),
        );
    }
    out.push_str("</svg>");
    out
}

/// Writes the edges from the centre to each node: one `<path>` for each run of edges of
/// the same width (nodes come most-shared first, so edges of one width are adjacent),
/// drawn in the nodes' order; the edge to the "+ N more" node is its own `edge-more`
/// path.
fn write_edges(out: &mut String, layout: &Layout, slots: &[Slot]) {
    out.push_str("<g class=\"edges\" aria-hidden=\"true\">\n");
    // The path being written: whether it is the "more" edge, and its width as drawn.
    let mut open: Option<(bool, String)> = None;
    for (node, slot) in layout.nodes.iter().zip(slots) {
        let kind = (slot.more, num(slot.stroke).to_string());
        if open.as_ref() != Some(&kind) {
            if open.is_some() {
                out.push_str("\"/>\n");
            }
            let class = if kind.0 { " class=\"edge-more\"" } else { "" };
            let _ = write!(out, "<path{class} stroke-width=\"{}\" d=\"", kind.1);
            open = Some(kind);
        }
        let _ = write!(out, "M0 0L{} {}", num(node.x), num(node.y));
    }
    if open.is_some() {
        out.push_str("\"/>\n");
    }
    out.push_str("</g>\n");
}

/// A `<text>` element for a placed label, with `class` (` class="…"`, or empty). A label
/// anchored at its start (SVG's default) names no anchor.
fn text_element(class: &str, label: &Label, text: &str) -> String {
    let anchor = match label.anchor {
        Anchor::Start => "",
        Anchor::Middle => " text-anchor=\"middle\"",
        Anchor::End => " text-anchor=\"end\"",
    };
    format!(
        "<text{class} x=\"{}\" y=\"{}\"{anchor}>{}</text>",
        num(label.x),
        num(label.y),
        escape(text),
    )
}

/// The `<desc>` text: how many co-authors, the most-shared one, and what is left out.
fn describe(coauthors: &[GraphNode], hidden: usize) -> String {
    let count = coauthors.len();
    let mut text = format!("{count} co-author{}", if count == 1 { "" } else { "s" });
    if let Some(first) = coauthors.first() {
        let _ = write!(
            text,
            ", most shared: {} ({})",
            display_name(first.name),
            papers(first.shared, "")
        );
    }
    if hidden > 0 {
        let _ = write!(
            text,
            ". The {} with the most shared papers are drawn; the list of co-authors has all {count}",
            count - hidden
        );
    }
    text.push('.');
    text
}

/// "1 paper", "2 papers", with `adjective` before "paper".
fn papers(count: usize, adjective: &str) -> String {
    format!(
        "{count} {adjective}paper{}",
        if count == 1 { "" } else { "s" }
    )
}

/// The name as displayed: without control characters, white space collapsed, and a
/// placeholder when nothing is left.
fn display_name(name: &str) -> String {
    let cleaned = clean_text(name);
    if cleaned.is_empty() {
        "(no name)".to_string()
    } else {
        cleaned
    }
}

/// Drops characters that are not allowed in HTML text (controls other than white space,
/// noncharacters) and collapses white space runs into one space, trimmed.
fn clean_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else if !forbidden(c) {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Whether `c` may not appear in an HTML document (controls and noncharacters).
fn forbidden(c: char) -> bool {
    let code = c as u32;
    c.is_control() || (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

/// Whether `c` combines with the character before it (so it is never cut off from it,
/// and takes no width of its own).
fn combining(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF
        | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F | 0x200C | 0x200D)
}

/// Whether `c` is drawn about twice as wide as a Latin letter (CJK, Hangul, kana,
/// full-width forms).
fn wide(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x115F | 0x2E80..=0x303E | 0x3041..=0x33FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xA000..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1FAFF
        | 0x20000..=0x3FFFD)
}

/// `text` shortened to about `max` characters (wide characters count twice) with "…".
fn shorten(text: &str, max: usize) -> String {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        if combining(c) {
            continue;
        }
        used += if wide(c) { 2 } else { 1 };
        if used > max {
            // Over the limit: keep what fits in `max - 1`, to leave room for "…".
            let mut keep = 0;
            let mut end = 0;
            for (j, d) in text.char_indices() {
                if j >= i {
                    break;
                }
                if !combining(d) {
                    keep += if wide(d) { 2 } else { 1 };
                    if keep + 1 > max {
                        break;
                    }
                }
                end = j + d.len_utf8();
            }
            return format!("{}…", text[..end].trim_end());
        }
    }
    text.to_string()
}

/// Estimated width of `text` at the label font size, generous rather than tight.
fn text_width(text: &str) -> f64 {
    let ems: f64 = text
        .chars()
        .map(|c| match c {
            _ if combining(c) => 0.0,
            _ if wide(c) => 1.0,
            'i' | 'j' | 'l' | 'I' | '.' | ',' | '\'' | ' ' | '!' | '|' | ':' | ';' => 0.3,
            'f' | 't' | 'r' | '-' | '(' | ')' | '[' | ']' => 0.4,
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '&' => 0.9,
            'A'..='Z' => 0.72,
            _ if c.is_ascii() => 0.58,
            _ => 0.65,
        })
        .sum();
    ems * FONT
}

/// `href` with the characters that are never valid in a URL percent-encoded: white
/// space and controls, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`, and `%` when it
/// does not start an escape. Surrounding white space is dropped, and a relative URL whose
/// first segment has a colon (which would read as a scheme) gets a leading `./`.
fn clean_href(href: &str) -> String {
    let href = href.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_control());
    // The usual link (`../../authors/x/index.html`) has nothing to encode: ASCII without
    // `%`, it comes out of the encoder whole, as one piece.
    let plain = href.is_ascii()
        && !href.contains('%')
        && utf8_percent_encode(href, NOT_IN_URL).next() == Some(href);
    let mut out = if plain {
        href.to_string()
    } else {
        percent_encoded(href)
    };
    if let Some(end) = out.find([':', '/', '?', '#']) {
        let scheme = &out[..end];
        let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if out[end..].starts_with(':') && !valid {
            out.insert_str(0, "./");
        }
    }
    out
}

/// `href` with the characters [`clean_href`] encodes percent-encoded, as UTF-8 with
/// uppercase hex digits: the ASCII ones in [`NOT_IN_URL`] and the non-ASCII white space
/// and [`forbidden`] characters by `utf8_percent_encode`, and a `%` that does not start
/// an escape as `%25`. Other non-ASCII characters stay readable.
fn percent_encoded(href: &str) -> String {
    let mut out = String::with_capacity(href.len());
    // `href[run..]` is not written yet; its ASCII characters other than `%` and its
    // non-ASCII characters to encode go to `utf8_percent_encode` in one piece.
    let mut run = 0;
    for (i, c) in href.char_indices() {
        let kept_as_is = match c {
            '%' => starts_escape(&href[i..]),
            // Left in the run, for the encoder.
            _ if c.is_ascii() || c.is_whitespace() || forbidden(c) => continue,
            _ => true,
        };
        out.extend(utf8_percent_encode(&href[run..i], NOT_IN_URL));
        if kept_as_is {
            out.push(c);
        } else {
            out.push_str(percent_encode_byte(b'%'));
        }
        run = i + c.len_utf8();
    }
    out.extend(utf8_percent_encode(&href[run..], NOT_IN_URL));
    out
}

/// Whether `text`, which starts with `%`, starts with a percent escape (`%` and two hex
/// digits).
fn starts_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() > 2 && bytes[1].is_ascii_hexdigit() && bytes[2].is_ascii_hexdigit()
}

/// `text` escaped for HTML/XML text and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    crate::tex::push_escaped(&mut out, text);
    out
}

/// `value` rounded to one decimal, without a trailing ".0" and without "-0".
fn num(value: f64) -> Num {
    Num(value)
}

/// A number as the SVG shows it (see [`num`]), written without allocating.
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tenths = if self.0.is_finite() {
            (self.0 * 10.0).round().clamp(-1e15, 1e15) as i64
        } else {
            0
        };
        let abs = tenths.unsigned_abs();
        if tenths < 0 {
            f.write_str("-")?;
        }
        f.write_str(itoa::Buffer::new().format(abs / 10))?;
        match abs % 10 {
            0 => Ok(()),
            tenth => {
                f.write_str(".")?;
                f.write_str(itoa::Buffer::new().format(tenth))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` co-authors named "Co-author N" with shared counts falling from `count`.
    fn names(count: usize) -> Vec<(String, String, usize)> {
        (0..count)
            .map(|i| {
                (
                    format!("Co-author {i}"),
                    format!("../co-author-{i}/"),
                    count - i,
                )
            })
            .collect()
    }

    fn nodes(list: &[(String, String, usize)]) -> Vec<GraphNode<'_>> {
        list.iter()
            .map(|(name, href, shared)| GraphNode {
                name,
                href,
                shared: *shared,
            })
            .collect()
    }

    fn svg(count: usize) -> String {
        let list = names(count);
        coauthor_svg("Ada Lovelace", &nodes(&list), "#coauthors-heading").unwrap()
    }

    /// The value of every `name="…"` attribute, in order.
    fn attrs<'s>(svg: &'s str, name: &str) -> Vec<&'s str> {
        let pattern = format!(" {name}=\"");
        svg.match_indices(&pattern)
            .map(|(i, _)| {
                let rest = &svg[i + pattern.len()..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect()
    }

    fn numbers(svg: &str, name: &str) -> Vec<f64> {
        attrs(svg, name)
            .into_iter()
            .map(|v| v.parse().unwrap())
            .collect()
    }

    /// A minimal XML well-formedness check: balanced tags, one root, quoted
    /// attributes without `<` or stray `&`, no stray `<` or `&` in text.
    fn well_formed(xml: &str) -> Result<(), String> {
        fn check_refs(text: &str) -> Result<(), String> {
            let mut rest = text;
            while let Some(i) = rest.find('&') {
                let after = &rest[i + 1..];
                let end = after.find(';').ok_or(format!("bare & in {text:?}"))?;
                let name = &after[..end];
                let ok = match name.strip_prefix('#') {
                    Some(n) => n.parse::<u32>().is_ok(),
                    None => matches!(name, "amp" | "lt" | "gt" | "quot" | "apos"),
                };
                if !ok {
                    return Err(format!("bad reference &{name};"));
                }
                rest = &after[end + 1..];
            }
            Ok(())
        }
        let mut stack: Vec<&str> = Vec::new();
        let mut roots = 0;
        let mut rest = xml;
        while !rest.is_empty() {
            let Some(open) = rest.find('<') else {
                check_refs(rest)?;
                if !stack.is_empty() || !rest.trim().is_empty() {
                    return Err(format!("text outside the root or unclosed {stack:?}"));
                }
                break;
            };
            check_refs(&rest[..open])?;
            if stack.is_empty() && !rest[..open].trim().is_empty() {
                return Err("text outside the root".into());
            }
            rest = &rest[open + 1..];
            if let Some(name_end) = rest.strip_prefix('/') {
                let close = name_end.find('>').ok_or("unclosed end tag")?;
                let name = &name_end[..close];
                if stack.pop() != Some(name) {
                    return Err(format!("mismatched </{name}>"));
                }
                rest = &name_end[close + 1..];
                continue;
            }
            let name_len = rest
                .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .ok_or("unclosed tag")?;
            let name = &rest[..name_len];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(format!("bad tag name {name:?}"));
            }
            rest = &rest[name_len..];
            loop {
                rest = rest.trim_start();
                if let Some(r) = rest.strip_prefix("/>") {
                    rest = r;
                    if stack.is_empty() {
                        roots += 1;
                    }
                    break;
                }
                if let Some(r) = rest.strip_prefix('>') {
                    rest = r;
                    if stack.is_empty() {
                        roots += 1;
                    }
                    stack.push(name);
                    break;
                }
                let eq = rest.find('=').ok_or("attribute without value")?;
                let attr = &rest[..eq];
                if attr.is_empty() || !attr.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                    return Err(format!("bad attribute name {attr:?}"));
                }
                let value = rest[eq + 1..]
                    .strip_prefix('"')
                    .ok_or("unquoted attribute")?;
                let end = value.find('"').ok_or("unterminated attribute")?;
                if value[..end].contains('<') {
                    return Err("< in attribute".into());
                }
                check_refs(&value[..end])?;
                rest = &value[end + 1..];
            }
        }
        if !stack.is_empty() {
            return Err(format!("unclosed {stack:?}"));
        }
        if roots != 1 {
            return Err(format!("{roots} root elements"));
        }
        Ok(())
    }

    #[test]
    fn no_coauthors_no_graph() {
        assert_eq!(coauthor_svg("Ada", &[], "#x"), None);
    }

    #[test]
    fn one_link_per_drawn_coauthor() {
        for count in [1, 2, 5, 10, 11, 24] {
            let svg = svg(count);
            assert_eq!(svg.matches("<a ").count(), count, "{count}");
            assert_eq!(svg.matches("<circle cx").count(), count);
            assert_eq!(svg.matches("M0 0L").count(), count, "one edge a co-author");
            assert_eq!(svg.matches("<circle ").count(), count + 1);
            assert!(!svg.contains("more"), "{count}");
            assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"));
            assert!(svg.contains("class=\"coauthor-graph\""));
        }
    }

    #[test]
    fn many_coauthors_are_capped_with_a_more_node() {
        let svg = svg(200);
        assert_eq!(svg.matches("<a ").count(), MAX_NODES + 1);
        assert_eq!(svg.matches("class=\"more\"").count(), 1);
        assert_eq!(svg.matches("M0 0L").count(), MAX_NODES + 1);
        // The edge to the "more" node is its own, dashed, and the last.
        let more_edge = "<path class=\"edge-more\" stroke-width=\"1\" d=\"M0 0L";
        assert_eq!(svg.matches(more_edge).count(), 1);
        assert!(svg.find(more_edge) > svg.rfind("<path stroke-width"));
        assert!(svg.contains("<a href=\"#coauthors-heading\" class=\"more\">"));
        assert!(svg.contains(">+ 176 more</text>"));
        // The most-shared are the ones drawn.
        assert!(svg.contains(">Co-author 23</text>"));
        assert!(!svg.contains(">Co-author 24</text>"));
        assert!(svg.contains("<desc>200 co-authors, most shared: Co-author 0 (200 papers)."));
        // One more than the cap still gets a "more" node.
        let svg = self::svg(25);
        assert!(svg.contains(">+ 1 more</text>"));
    }

    #[test]
    fn title_and_description_summarize() {
        let list = vec![
            ("Bor-Yiing Su".to_string(), "../su/".to_string(), 1),
            ("Someone Else".to_string(), "../else/".to_string(), 1),
        ];
        let svg = coauthor_svg("Zhongbo Zhu", &nodes(&list), "#c").unwrap();
        assert!(svg.contains("<title>Co-author graph of Zhongbo Zhu</title>"));
        assert!(svg.contains("<desc>2 co-authors, most shared: Bor-Yiing Su (1 paper).</desc>"));
        assert!(svg.contains("<title>Bor-Yiing Su, 1 shared paper</title>"));
        let one = coauthor_svg("Z", &nodes(&list[..1]), "#c").unwrap();
        assert!(one.contains("<desc>1 co-author, most shared"));
    }

    #[test]
    fn hostile_text_is_escaped() {
        let list = vec![
            (
                "<script>alert(1)</script>".to_string(),
                "../x/?a=1&b=\"2\"".to_string(),
                3,
            ),
            (
                "\"quotes\" & 'apos'".to_string(),
                "<javascript:'>".to_string(),
                2,
            ),
            ("\u{0}\u{7}\u{FFFE}".to_string(), " a b ".to_string(), 1),
        ];
        let svg = coauthor_svg("<b>&amp;</b>", &nodes(&list), "#\"more\"").unwrap();
        well_formed(&svg).unwrap();
        assert!(!svg.contains("<script"));
        assert!(!svg.contains("<b>"));
        assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;, 3 shared papers"));
        assert!(svg.contains("&quot;quotes&quot; &amp; &#39;apos&#39;"));
        assert!(svg.contains("Co-author graph of &lt;b&gt;&amp;amp;&lt;/b&gt;"));
        assert!(svg.contains("href=\"../x/?a=1&amp;b=%222%22\""));
        assert!(svg.contains("href=\"./%3Cjavascript:&#39;%3E\""));
        assert!(svg.contains("href=\"a%20b\""));
        assert!(svg.contains("(no name), 1 shared paper"));
        assert!(!svg.contains('\u{0}') && !svg.contains('\u{7}') && !svg.contains('\u{FFFE}'));
        let many = names(30);
        let svg = coauthor_svg("x", &nodes(&many), "#\"more\"&'").unwrap();
        assert!(svg.contains("<a href=\"#%22more%22&amp;&#39;\" class=\"more\">"));
    }

    #[test]
    fn hrefs_are_made_valid() {
        assert_eq!(clean_href("../a-b/"), "../a-b/");
        assert_eq!(
            clean_href("https://example.org/a?b=1#c"),
            "https://example.org/a?b=1#c"
        );
        assert_eq!(clean_href(" ../a b/\n"), "../a%20b/");
        assert_eq!(clean_href("../ü/%C3%BC%zz"), "../ü/%C3%BC%25zz");
        assert_eq!(clean_href("a\"<>\\^`{|}"), "a%22%3C%3E%5C%5E%60%7B%7C%7D");
        assert_eq!(clean_href("%41%4%"), "%41%254%25");
        assert_eq!(clean_href("a\u{7F}b\u{1}c"), "a%7Fb%01c");
        // Non-ASCII stays readable, but for white space, controls and noncharacters.
        assert_eq!(clean_href("é\u{A0}ü\u{85}x"), "é%C2%A0ü%C2%85x");
        assert_eq!(
            clean_href("x\u{3000}y\u{FDD0}z\u{1FFFF}"),
            "x%E3%80%80y%EF%B7%90z%F0%9F%BF%BF"
        );
        assert_eq!(clean_href("ü%zz ü"), "ü%25zz%20ü");
        assert_eq!(clean_href(":x"), "./:x");
        assert_eq!(clean_href("1a:b/c"), "./1a:b/c");
        assert_eq!(clean_href("a/b:c"), "a/b:c");
        assert_eq!(clean_href("#coauthors-heading"), "#coauthors-heading");
        assert_eq!(clean_href(""), "");
    }

    #[test]
    fn unicode_names_stay_readable() {
        let list = vec![
            (
                "Zoë Ångström-Łukasiewicz".to_string(),
                "../z/".to_string(),
                2,
            ),
            ("王小明".to_string(), "../w/".to_string(), 1),
            ("Nguyễn Thị Lan".to_string(), "../n/".to_string(), 1),
        ];
        let svg = coauthor_svg("José Müller", &nodes(&list), "#c").unwrap();
        well_formed(&svg).unwrap();
        assert!(svg.contains(">王小明</text>"));
        assert!(svg.contains("<title>Zoë Ångström-Łukasiewicz, 2 shared papers</title>"));
        assert!(svg.contains(">Zoë Ångström-Łuka…</text>"));
        assert!(svg.contains(">Nguyễn Thị Lan</text>"));
        assert!(svg.contains(">José Müller</text>"));
    }

    #[test]
    fn shortening() {
        assert_eq!(shorten("short name", 18), "short name");
        assert_eq!(shorten("exactly eighteen c", 18), "exactly eighteen c");
        assert_eq!(shorten("nineteen characters", 18), "nineteen characte…");
        assert_eq!(
            shorten("a very long name with spaces", 18),
            "a very long name…"
        );
        // A combining accent stays with its letter.
        let decomposed = "abcdefghijklmnope\u{301}xyz";
        assert_eq!(shorten(decomposed, 18), "abcdefghijklmnope\u{301}…");
        // Wide characters count twice.
        assert_eq!(shorten("一二三四五六七八九十", 18), "一二三四五六七八…");
        assert_eq!(shorten("", 18), "");
    }

    #[test]
    fn same_input_same_bytes() {
        for count in [1, 3, 8, 13, 24, 200] {
            assert_eq!(svg(count), svg(count));
        }
    }

    #[test]
    fn edge_widths_grow_with_shared_papers() {
        let widths: Vec<f64> = [1, 2, 3, 5, 10, 20, 50].map(edge_width).to_vec();
        assert!(widths.windows(2).all(|w| w[0] < w[1]), "{widths:?}");
        assert_eq!(edge_width(0), 1.0);
        assert_eq!(edge_width(usize::MAX), 7.0);
        let radii: Vec<f64> = [1, 2, 5, 20].map(node_radius).to_vec();
        assert!(radii.windows(2).all(|w| w[0] < w[1]), "{radii:?}");
        // In the markup: co-authors come most-shared first, so their edges get thinner.
        let list = vec![
            ("A".to_string(), "a".to_string(), 12),
            ("B".to_string(), "b".to_string(), 4),
            ("C".to_string(), "c".to_string(), 2),
            ("D".to_string(), "d".to_string(), 1),
        ];
        let svg = coauthor_svg("X", &nodes(&list), "#c").unwrap();
        let drawn = numbers(&svg, "stroke-width");
        assert_eq!(drawn.len(), 4);
        assert!(drawn.windows(2).all(|w| w[0] > w[1]), "{drawn:?}");
    }

    #[test]
    fn edges_of_one_width_share_a_path_in_the_nodes_order() {
        let list: Vec<(String, String, usize)> = [("A", 3), ("B", 3), ("C", 1), ("D", 1), ("E", 1)]
            .map(|(name, shared)| (name.to_string(), format!("../{name}/"), shared))
            .to_vec();
        let svg = coauthor_svg("X", &nodes(&list), "#c").unwrap();
        let paths = attrs(&svg, "d");
        assert_eq!(paths.len(), 2, "{svg}");
        assert_eq!(paths[0].matches("M0 0L").count(), 2);
        assert_eq!(paths[1].matches("M0 0L").count(), 3);
        assert_eq!(
            numbers(&svg, "stroke-width"),
            [edge_width(3), edge_width(1)].map(|w| (w * 10.0).round() / 10.0)
        );
        // Each edge ends at its node's centre, in the nodes' order.
        let ends: Vec<(f64, f64)> = (paths.iter())
            .flat_map(|d| d.split("M0 0L").skip(1))
            .map(|end| {
                let (x, y) = end.split_once(' ').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        let centres: Vec<(f64, f64)> = (numbers(&svg, "cx").into_iter().skip(1))
            .zip(numbers(&svg, "cy").into_iter().skip(1))
            .collect();
        assert_eq!(ends, centres);
    }

    #[test]
    fn view_box_contains_everything() {
        for count in [1, 2, 5, 9, 10, 11, 17, 24, 25, 200] {
            let svg = svg(count);
            let view: Vec<f64> = attrs(&svg, "viewBox")[0]
                .split(' ')
                .map(|v| v.parse().unwrap())
                .collect();
            let (x0, y0, x1, y1) = (view[0], view[1], view[0] + view[2], view[1] + view[3]);
            assert_eq!(numbers(&svg, "width")[0], view[2]);
            assert_eq!(numbers(&svg, "height")[0], view[3]);
            let (cx, cy, r) = (numbers(&svg, "cx"), numbers(&svg, "cy"), numbers(&svg, "r"));
            assert_eq!(cx.len(), count.min(MAX_NODES + 1) + 1);
            for ((x, y), r) in cx.iter().zip(&cy).zip(&r) {
                assert!(
                    x - r >= x0 && x + r <= x1 && y - r >= y0 && y + r <= y1,
                    "{count}"
                );
            }
            for (x, y) in numbers(&svg, "x").iter().zip(numbers(&svg, "y")) {
                assert!(*x > x0 && *x < x1 && y > y0 && y < y1, "{count}");
            }
        }
    }

    #[test]
    fn labels_do_not_overlap() {
        for count in (1..=30).chain([200]) {
            let list = names(count);
            let drawn = nodes(&list);
            let slots: Vec<Slot> = drawn
                .iter()
                .take(MAX_NODES)
                .map(|c| {
                    let label = shorten(c.name, LABEL_CHARS);
                    Slot::new(label, String::new(), String::new(), c.shared, false)
                })
                .collect();
            let layout = Layout::new(&slots, "Ada Lovelace");
            assert_eq!(
                worst_overlap(&slots, &layout.nodes, &layout.center_label),
                None,
                "{count}"
            );
        }
    }

    #[test]
    fn labels_point_away_from_the_centre() {
        let svg = svg(12);
        // Each label's x and anchor (SVG's default, `start`, when none is named): the
        // centre label, then the nodes clockwise from the top.
        let labels: Vec<(f64, &str)> = svg
            .split("<text")
            .skip(1)
            .map(|element| {
                let tag = &element[..element.find('>').unwrap()];
                let x = numbers(tag, "x")[0];
                (
                    x,
                    attrs(tag, "text-anchor")
                        .first()
                        .copied()
                        .unwrap_or("start"),
                )
            })
            .collect();
        assert_eq!(labels.len(), 13);
        assert_eq!(labels[0], (0.0, "middle"));
        let anchors: Vec<&str> = labels.iter().map(|(_, anchor)| *anchor).collect();
        assert!(anchors.contains(&"start") && anchors.contains(&"end"));
        assert!(
            !svg.contains("text-anchor=\"start\""),
            "the default is not named"
        );
        for (x, anchor) in &labels[1..] {
            match *anchor {
                "start" => assert!(*x > 0.0),
                "end" => assert!(*x < 0.0),
                _ => {}
            }
        }
    }

    #[test]
    fn output_is_well_formed() {
        for count in [1, 2, 5, 24, 200] {
            well_formed(&svg(count)).unwrap();
        }
        assert!(well_formed("<svg><a></svg>").is_err());
        assert!(well_formed("<svg>&</svg>").is_err());
        assert!(well_formed("<svg a=\"<\"/>").is_err());
        assert!(well_formed("<svg/><svg/>").is_err());
    }

    #[test]
    fn numbers_are_formatted_with_one_decimal() {
        assert_eq!(num(0.0).to_string(), "0");
        assert_eq!(num(-0.04).to_string(), "0");
        assert_eq!(num(-0.05).to_string(), "-0.1");
        assert_eq!(num(12.345).to_string(), "12.3");
        assert_eq!(num(-7.25).to_string(), "-7.3");
        assert_eq!(num(3.0).to_string(), "3");
        assert_eq!(num(f64::NAN).to_string(), "0");
        assert_eq!(num(f64::INFINITY).to_string(), "0");
        assert_eq!(num(123456.78).to_string(), "123456.8");
        assert_eq!(num(-3.04).to_string(), "-3");
        assert_eq!(num(-1e30).to_string(), "-100000000000000");
    }

    #[test]
    fn never_panics() {
        // A small deterministic generator of awkward names, hrefs and counts.
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let pieces = [
            "",
            " ",
            "\u{0}",
            "\n\t",
            "&",
            "<",
            "'",
            "\"",
            "é",
            "e\u{301}",
            "王",
            "😀",
            "\u{FFFF}",
            "\u{85}",
            "%",
            "%4",
            "Anne-Marie",
            "x",
        ];
        for round in 0..200 {
            let count = (next() % 40) as usize;
            let list: Vec<(String, String, usize)> = (0..count)
                .map(|_| {
                    let len = (next() % 30) as usize;
                    let name: String = (0..len)
                        .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                        .collect();
                    let href: String = (0..(next() % 6))
                        .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                        .collect();
                    let shared = match next() % 4 {
                        0 => 0,
                        1 => usize::MAX - (next() % 3) as usize,
                        _ => (next() % 1000) as usize,
                    };
                    (name, href, shared)
                })
                .collect();
            let drawn = nodes(&list);
            let center = pieces[round % pieces.len()];
            match coauthor_svg(center, &drawn, "#more") {
                None => assert_eq!(count, 0),
                Some(svg) => {
                    well_formed(&svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
                    assert_eq!(svg.matches("<a ").count(), count.min(MAX_NODES + 1));
                    assert!(!svg.chars().any(|c| c != '\n' && forbidden(c)), "{svg}");
                }
            }
        }
    }

    #[test]
    fn ten_thousand_coauthors() {
        let list: Vec<(String, String, usize)> = (0..10_000)
            .map(|i| (format!("Person {i}"), format!("../p{i}/"), 10_000 - i))
            .collect();
        let svg = coauthor_svg("Prolific", &nodes(&list), "#coauthors-heading").unwrap();
        assert_eq!(svg.matches("<a ").count(), MAX_NODES + 1);
        assert!(svg.contains(">+ 9976 more</text>"));
        assert!(svg.len() < 20_000, "{}", svg.len());
        well_formed(&svg).unwrap();
    }
}
