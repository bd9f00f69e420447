//! Tables for the terminal, right in a real terminal: laid out on plain text by display width
//! (wide CJK and emoji take two columns), coloured only after layout.
//!
//! comfy-table chooses the column widths from the plain text (its dynamic arrangement fits the
//! table to the terminal); this module then wraps every cell line to its column by display
//! width, draws the borders, and paints each laid-out line of a cell (never the padding and
//! never across a line break), so a colour code is never counted as text, never split, and
//! never cut by a border.

use comfy_table::{ContentArrangement, Table, presets};

use super::style::{Paint, Style};
use super::text::{display_width, wrap_exact};

/// One cell: lines of text, each painted as a whole once laid out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GridCell {
    lines: Vec<(String, Paint)>,
}

impl GridCell {
    /// A plain cell; `\n` starts a new line.
    pub fn plain(text: &str) -> Self {
        GridCell::default().line(text, Paint::Plain)
    }

    /// Add `text` (which may hold `\n`) as lines painted `paint`.
    pub fn line(mut self, text: &str, paint: Paint) -> Self {
        for l in text.split('\n') {
            self.lines.push((l.to_owned(), paint));
        }
        self
    }

    fn text(&self) -> String {
        self.lines
            .iter()
            .map(|(l, _)| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl From<&str> for GridCell {
    fn from(s: &str) -> Self {
        GridCell::plain(s)
    }
}

impl From<String> for GridCell {
    fn from(s: String) -> Self {
        GridCell::plain(&s)
    }
}

/// A table with a header row, drawn with the `UTF8_FULL_CONDENSED` borders.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    header: Vec<GridCell>,
    rows: Vec<Vec<GridCell>>,
}

impl Grid {
    /// A table with these column headings (painted bold).
    pub fn new<S: AsRef<str>>(header: &[S]) -> Self {
        Grid {
            header: header
                .iter()
                .map(|h| GridCell::default().line(h.as_ref(), Paint::Bold))
                .collect(),
            rows: Vec::new(),
        }
    }

    /// Add a row (missing cells are empty; extra cells are dropped).
    pub fn row<C: Into<GridCell>>(&mut self, cells: impl IntoIterator<Item = C>) -> &mut Self {
        let mut row: Vec<GridCell> = cells.into_iter().map(Into::into).collect();
        row.resize(self.header.len(), GridCell::default());
        self.rows.push(row);
        self
    }

    /// The table at most `width` columns wide (when the columns can shrink that far), painted
    /// with `style`. Every line ends with a newline except the last.
    pub fn render(&self, width: u16, style: Style) -> String {
        let n = self.header.len();
        if n == 0 {
            return String::new();
        }
        let widths = self.column_widths(width);
        let mut out = Vec::new();
        out.push(border(&widths, '┌', '─', '┬', '┐'));
        out.extend(row_lines(&self.header, &widths, style));
        out.push(border(&widths, '╞', '═', '╪', '╡'));
        for r in &self.rows {
            out.extend(row_lines(r, &widths, style));
        }
        out.push(border(&widths, '└', '─', '┴', '┘'));
        out.join("\n")
    }

    /// The content width of each column, as comfy-table arranges the plain text to `width`.
    fn column_widths(&self, width: u16) -> Vec<usize> {
        let mut t = Table::new();
        t.load_style(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(width)
            .force_no_tty();
        t.set_header(self.header.iter().map(GridCell::text).collect::<Vec<_>>());
        for r in &self.rows {
            t.add_row(r.iter().map(GridCell::text).collect::<Vec<_>>());
        }
        let laid = t.to_string();
        // The top border names every column's outer width: `┌───┬─────┐`.
        let top = laid.lines().next().unwrap_or_default();
        let inner = top.trim_start_matches('┌').trim_end_matches('┐');
        let mut widths: Vec<usize> = inner
            .split('┬')
            .map(|seg| seg.chars().count().saturating_sub(2).max(2))
            .collect();
        // comfy-table always draws one segment per column; be safe if it ever does not.
        widths.resize(self.header.len(), 2);
        widths
    }
}

fn border(widths: &[usize], left: char, fill: char, mid: char, right: char) -> String {
    let mut s = String::new();
    s.push(left);
    for (i, w) in widths.iter().enumerate() {
        if i > 0 {
            s.push(mid);
        }
        for _ in 0..w + 2 {
            s.push(fill);
        }
    }
    s.push(right);
    s
}

/// The terminal lines of one row: each cell line wrapped to its column, painted, padded.
fn row_lines(cells: &[GridCell], widths: &[usize], style: Style) -> Vec<String> {
    let laid: Vec<Vec<(String, Paint)>> = cells
        .iter()
        .zip(widths)
        .map(|(c, w)| {
            c.lines
                .iter()
                .flat_map(|(text, paint)| {
                    wrap_exact(text, *w).into_iter().map(move |l| (l, *paint))
                })
                .collect()
        })
        .collect();
    let height = laid.iter().map(Vec::len).max().unwrap_or(0).max(1);
    (0..height)
        .map(|i| {
            let mut s = String::from("│");
            for (col, (cell, w)) in laid.iter().zip(widths).enumerate() {
                if col > 0 {
                    s.push('┆');
                }
                s.push(' ');
                let (text, paint) = cell
                    .get(i)
                    .map_or(("", Paint::Plain), |(t, p)| (t.as_str(), *p));
                let used = display_width(text);
                s.push_str(&style.paint(paint, text));
                s.push_str(&" ".repeat(w.saturating_sub(used) + 1));
            }
            s.push('│');
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Drop mcpvet's own SGR sequences (the only escapes a grid writes).
    fn strip_sgr(s: &str) -> String {
        let re = regex::Regex::new("\x1b\\[[0-9;]*m").unwrap_or_else(|e| panic!("{e}"));
        re.replace_all(s, "").into_owned()
    }

    fn sample() -> Grid {
        let mut g = Grid::new(&["server", "findings"]);
        g.row([
            GridCell::plain("ci-insights").line("pass", Paint::Green),
            GridCell::default()
                .line(
                    "1 critical",
                    Paint::Severity(crate::model::finding::Severity::Critical),
                )
                .line(
                    "1 medium",
                    Paint::Severity(crate::model::finding::Severity::Medium),
                ),
        ]);
        g
    }

    #[test]
    fn colour_is_applied_after_layout() {
        let g = sample();
        let plain = g.render(80, Style::new(false));
        let coloured = g.render(80, Style::new(true));
        assert_eq!(strip_sgr(&coloured), plain);
        // Each painted line is one whole sequence: opened, text, closed, on the same line.
        assert!(coloured.contains("\x1b[32mpass\x1b[0m"), "{coloured}");
        assert!(
            coloured.contains("\x1b[1;31m1 critical\x1b[0m"),
            "{coloured}"
        );
        for l in coloured.lines() {
            assert_eq!(l.matches("\x1b[").count() % 2, 0, "{l:?}");
        }
    }

    #[test]
    fn a_narrow_table_wraps_painted_text_without_splitting_a_code() {
        let mut g = Grid::new(&["a", "b", "c"]);
        g.row([
            GridCell::plain("x").line("NOT pinned at all", Paint::Yellow),
            GridCell::plain(&"word ".repeat(30)),
            GridCell::plain(&"語".repeat(40)),
        ]);
        let coloured = g.render(40, Style::new(true));
        let widths: Vec<usize> = strip_sgr(&coloured).lines().map(display_width).collect();
        assert!(widths.iter().all(|w| *w == widths[0]), "{coloured}");
        assert!(widths[0] <= 40, "{coloured}");
        // Every sequence opened on a line is closed on that line.
        for l in coloured.lines() {
            assert_eq!(
                l.matches("\x1b[").count(),
                2 * l.matches("\x1b[0m").count(),
                "{l:?}"
            );
        }
    }

    #[test]
    fn wide_characters_keep_the_borders_aligned() {
        let mut g = Grid::new(&["name", "what"]);
        g.row(["検索ツール", "🔥 fire 🔥"]);
        g.row(["plain", "ascii"]);
        let out = g.render(80, Style::new(false));
        let widths: Vec<usize> = out.lines().map(display_width).collect();
        assert!(widths.iter().all(|w| *w == widths[0]), "{out}");
    }

    proptest! {
        #[test]
        fn every_line_has_the_same_display_width(
            cells in proptest::collection::vec("[a-z 語🔥é\u{301}-]{0,40}", 3..12),
            width in 40u16..160,
        ) {
            let mut g = Grid::new(&["one", "two", "three"]);
            for chunk in cells.chunks(3) {
                g.row(chunk.iter().map(|c| GridCell::default().line(c, Paint::Red)));
            }
            let coloured = g.render(width, Style::new(true));
            let plain = g.render(width, Style::new(false));
            prop_assert_eq!(strip_sgr(&coloured), plain.clone());
            let widths: Vec<usize> = plain.lines().map(display_width).collect();
            prop_assert!(widths.iter().all(|w| *w == widths[0]), "{}", plain);
            prop_assert!(widths[0] <= usize::from(width), "{}", plain);
        }
    }
}
