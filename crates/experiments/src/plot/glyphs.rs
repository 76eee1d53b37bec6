//! Text of PNG plots placed glyph by glyph at the font's positions.
//!
//! plotters' `ab_glyph` renderer (0.3.7, `style/font/ab_glyph.rs`) rasterises every glyph at the
//! origin and pastes it at the pen position truncated to a whole pixel, dropping the glyph's left
//! side bearing: the gaps between letters then vary by up to two pixels ("ru ns", and in the
//! rotated y-axis label "cum ulati ve r egret", issue 34). [`PlacedText`] wraps a bitmap backend
//! and draws text itself: each glyph is outlined at its exact (fractional) pen position, so the
//! rasteriser places its bearing and its sub-pixel offset, then rotated as plotters rotates text.
//! The layout box, the anchor and the baseline (half the font size below the box's top) are those
//! of plotters, so charts lay out exactly as before. ab_glyph and plotters-backend are the crates
//! plotters itself uses for this (same versions); text of another family than the embedded
//! `sans-serif` is left to plotters.

use ab_glyph::{Font, FontRef, ScaleFont, point};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};
use std::sync::OnceLock;

/// The embedded Noto Sans, parsed once (None if it could not be parsed: plotters then draws).
fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(ttf_noto_sans::REGULAR).ok()).as_ref()
}

/// A drawing backend that draws `sans-serif` text with correctly placed glyphs and everything
/// else through `B`.
pub struct PlacedText<B>(pub B);

impl<B: DrawingBackend> DrawingBackend for PlacedText<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.blit_bitmap(pos, size, src)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        self.0.estimate_text_size(text, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        let Some(font) = font().filter(|_| style.family().as_str() == "sans-serif") else {
            return self.0.draw_text(text, style, pos);
        };
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        // plotters' layout box and anchor (plotters-backend's default `draw_text`).
        let ((min_x, min_y), (max_x, max_y)) =
            style.layout_box(text).map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -(max_x - min_x),
            HPos::Center => -(max_x - min_x) / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -(max_y - min_y) / 2,
            VPos::Bottom => -(max_y - min_y),
        };
        let transform = style.transform();
        let (w, h) = self.0.get_size();
        let size = style.size() as f32;
        let scaled = font.as_scaled(size);
        let mut pen = 0f32;
        let mut previous = None;
        let mut result = Ok(());
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                pen += scaled.kern(p, id);
            }
            previous = Some(id);
            // The baseline half the font size below the top, as plotters places it.
            let glyph = id.with_scale_and_position(size, point(pen, size / 2.0));
            pen += scaled.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else { continue };
            let bounds = outline.px_bounds();
            let (x0, y0) = (bounds.min.x as i32, bounds.min.y as i32);
            outline.draw(|x, y, coverage| {
                if result.is_err() || coverage <= 0.0 {
                    return;
                }
                let (tx, ty) = transform.transform(x0 + x as i32 + dx - min_x, y0 + y as i32 + dy - min_y);
                let (px, py) = (pos.0 + tx, pos.1 + ty);
                if px >= 0 && py >= 0 && px < w as i32 && py < h as i32 {
                    result = self.0.draw_pixel((px, py), color.mix(f64::from(coverage.min(1.0))));
                }
            });
            if result.is_err() {
                break;
            }
        }
        result
    }
}

/// The characters of `text` that the embedded font has no glyph for (a plot would draw boxes).
#[cfg(test)]
pub(crate) fn missing_glyphs(text: &str) -> Vec<char> {
    let font = font().expect("the embedded font parses");
    text.chars().filter(|&c| font.glyph_id(c).0 == 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// The pixels of `text` drawn in black on white, `rotated` as a y-axis label is, by plotters'
    /// own renderer or by [`PlacedText`]: (width, height, darkness 0..=1 per pixel, row-major).
    fn draw(text: &str, rotated: bool, placed: bool) -> (usize, usize, Vec<f64>) {
        crate::plot::ensure_font().unwrap();
        let (w, h) = (320usize, 320usize);
        let mut buf = vec![255u8; w * h * 3];
        {
            let font = ("sans-serif", 17).into_font();
            let font = if rotated { font.transform(FontTransform::Rotate270) } else { font };
            let style = TextStyle::from(font).color(&BLACK);
            let bitmap = BitMapBackend::with_buffer(&mut buf, (w as u32, h as u32));
            if placed {
                let area = PlacedText(bitmap).into_drawing_area();
                area.draw_text(text, &style, (20, 300)).unwrap();
                area.present().unwrap();
            } else {
                let area = bitmap.into_drawing_area();
                area.draw_text(text, &style, (20, 300)).unwrap();
                area.present().unwrap();
            }
        }
        let ink = buf.chunks(3).map(|p| 1.0 - f64::from(p[0]) / 255.0).collect();
        (w, h, ink)
    }

    /// The ink of each glyph along the text's direction: for every run of lines (columns, or rows
    /// for rotated text) with ink, separated by blank lines, its ink-weighted centre.
    fn glyph_centres(text: &str, rotated: bool, placed: bool) -> Vec<f64> {
        let (w, h, ink) = draw(text, rotated, placed);
        let lines = if rotated { h } else { w };
        let across = if rotated { w } else { h };
        // Rotated text reads upwards: line 0 along the text is the bottom row.
        let at = |along: usize, a: usize| if rotated { ink[(h - 1 - along) * w + a] } else { ink[a * w + along] };
        let mut centres = Vec::new();
        let (mut mass, mut moment) = (0.0, 0.0);
        for along in 0..lines {
            let m: f64 = (0..across).map(|a| at(along, a)).sum();
            if m > 0.0 {
                mass += m;
                moment += m * along as f64;
            } else if mass > 0.0 {
                centres.push(moment / mass);
                (mass, moment) = (0.0, 0.0);
            }
        }
        centres
    }

    #[test]
    fn repeated_glyphs_are_equally_spaced_upright_and_rotated() {
        // Ten n's: each one the advance of `n` (10.4 px at 17 px) after the previous one. With the
        // glyphs at their exact positions the ink centres are equally spaced to a small fraction
        // of a pixel (anti-aliasing keeps the sub-pixel offset); pasted at truncated pen positions
        // (plotters) the steps alternate between 10 and 11 pixels.
        for rotated in [false, true] {
            let spread = |placed| {
                let c = glyph_centres("nnnnnnnnnn", rotated, placed);
                assert_eq!(c.len(), 10, "rotated {rotated}: {c:?}");
                let steps: Vec<f64> = c.windows(2).map(|p| p[1] - p[0]).collect();
                let lo = steps.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = steps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                hi - lo
            };
            // 0.25 px: far below the whole pixel of truncation, above the rasteriser's rounding
            // of coverage to 8 bits.
            assert!(spread(true) < 0.25, "rotated {rotated}: placed glyph steps vary by {}", spread(true));
            assert!(spread(false) > 0.5, "plotters' own renderer was fixed? steps vary by {}", spread(false));
        }
    }

    #[test]
    fn letters_sit_where_the_font_puts_them() {
        // "i v i v i" rotated, as the y-axis label is drawn: the ink centre of each letter is its
        // pen position (the advances and kerning before it) plus the centre of its outline, from
        // the font's outlines in font units; the distances between neighbouring letters are
        // compared. plotters drops each glyph's left bearing and truncates the pen, so its i→v and
        // v→i distances are off by half a pixel (measured: 0.49 px; placed: 0.02 px).
        let text = "i v i v i";
        let font = font().unwrap();
        let s = font.as_scaled(17.0);
        let mut expected = Vec::new();
        let (mut pen, mut previous) = (0f32, None);
        for c in text.chars() {
            let id = s.glyph_id(c);
            if let Some(p) = previous {
                pen += s.kern(p, id);
            }
            previous = Some(id);
            if c != ' ' {
                let b = font.outline(id).unwrap().bounds;
                expected.push(f64::from(pen + (b.min.x + b.max.x) / 2.0 * s.h_scale_factor()));
            }
            pen += s.h_advance(id);
        }
        for placed in [true, false] {
            let c = glyph_centres(text, true, placed);
            assert_eq!(c.len(), 5, "{c:?}");
            let worst = (0..4).map(|k| ((c[k + 1] - c[k]) - (expected[k + 1] - expected[k])).abs()).fold(0.0, f64::max);
            // 0.15 px: the ink centre of an anti-aliased glyph is its outline's centre to a few
            // hundredths of a pixel (v and i are nearly symmetric).
            if placed {
                assert!(worst < 0.15, "placed glyphs off by {worst} px: centres {c:?}, expected {expected:?}");
            } else {
                assert!(worst > 0.3, "plotters' own renderer was fixed? off by {worst} px only");
            }
        }
    }
}
