//! COBOL's x^c searches: the best-first search over the candidates (exact programs only where
//! the cheap bounds cannot rule a point out), the local compass search of [`XcSearch::Local`], and
//! the constrained argmin of COBOHL and the λ₀ = 0 ablation.

use super::*;

impl Cobol {
    /// x^c = argmin J over the prepared search points (step 3 of [`Cobol`]), best-first: the
    /// candidates in increasing order of their certified lower bounds of J, each program solved only
    /// where the cheap bounds cannot rule the point out (all of them in the tests' reference mode,
    /// at most K under [`XcSearch::Programs`]). Returns x^c's index, J(x^c), z(x^c) and g's point
    /// at x^c; records the programs solved and the certified gap in `info`.
    // Long: one best-first loop whose pruning steps share the incumbent; split, it reads worse.
    pub(super) fn xc_over_points(
        &self,
        g: &mut GModel,
        mut gpts: Vec<GPoint>,
        bounds: &[Bounds],
        lambda: f64,
        info: &mut StepInfo,
    ) -> Result<(usize, f64, f64, GPoint)> {
        let n = bounds.len();
        let use_upper = lambda < 0.0;
        let z_range = |p: &GPoint| if use_upper { (p.upper_floor, p.upper_cap) } else { (p.lower_floor, p.lower_cap) };
        let j_range_of = |p: &GPoint, lcb: f64| {
            let (zl, zh) = z_range(p);
            (lcb + lambda * zl).min(lcb + lambda * zh)
        };
        let first: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let (zl, zh) = z_range(&gpts[i]);
                let (a, b) = (bounds[i].lcb + lambda * zl, bounds[i].lcb + lambda * zh);
                (a.min(b), a.max(b))
            })
            .collect();
        let j_range = |i: usize| first[i];
        let cap = (0..n).map(|i| j_range(i).1).fold(f64::INFINITY, f64::min);
        let mut order: Vec<usize> = (0..n).filter(|&i| j_range(i).0 <= cap).collect();
        order.sort_by(|&a, &b| j_range(a).0.total_cmp(&j_range(b).0).then(a.cmp(&b)));
        let mut best: Option<(usize, f64, f64)> = None;
        // The work bound (`search`): at most this many programs; the smallest certified lower
        // bound of J over the candidates it leaves undecided.
        let budget = match self.config.search {
            XcSearch::Exact | XcSearch::Local { .. } => None,
            XcSearch::Programs(k) => Some(k),
        };
        let mut undecided_floor = f64::INFINITY;
        if self.exact_all {
            // Reference mode: every candidate's program, in index order (ties to the first).
            order = (0..n).collect();
        }
        for &i in &order {
            if self.exact_all {
                info.solved += 1;
                let z = if use_upper { g.upper(&gpts[i])? } else { g.lower(&gpts[i])? };
                let j = bounds[i].lcb + lambda * z;
                if best.is_none_or(|(_, bj, _)| j < bj) {
                    best = Some((i, j, z));
                }
                continue;
            }
            if let Some((_, bj, _)) = best {
                if j_range_of(&gpts[i], bounds[i].lcb) > bj {
                    // In increasing order of the first bounds: no later point can do better.
                    if j_range(i).0 > bj {
                        break;
                    }
                    continue;
                }
                // Every solve adds cuts: tighten this point's enclosure before solving it, then,
                // if that is not enough, with the curvature bounds (dearer, but they certify far
                // from the solved points).
                g.refresh(&mut gpts[i])?;
                if j_range_of(&gpts[i], bounds[i].lcb) > bj {
                    continue;
                }
                if self.curvature_screening {
                    g.tighten(&mut gpts[i])?;
                    if j_range_of(&gpts[i], bounds[i].lcb) > bj {
                        continue;
                    }
                }
            }
            // A closed enclosure is the value itself (e.g. the box floor reached by a feasible
            // point): no program.
            let settled = if use_upper { gpts[i].settled_upper() } else { gpts[i].settled_lower() };
            let z = match settled {
                Some(z) => z,
                None if budget.is_some_and(|k| info.solved >= k) => {
                    // The work bound is spent: the candidate stays undecided, its certified
                    // lower bound of J enters the gap.
                    undecided_floor = undecided_floor.min(j_range_of(&gpts[i], bounds[i].lcb));
                    continue;
                }
                None => {
                    info.solved += 1;
                    // With an incumbent, the program may stop once it certifies J(x) ≥ J*: z
                    // beyond (J* − LCB)/λ (from above for λ > 0, from below for λ < 0).
                    let level = best.filter(|_| lambda != 0.0).map(|(_, bj, _)| (bj - bounds[i].lcb) / lambda);
                    let screened = match level {
                        None => ZValue::Exact(if use_upper { g.upper(&gpts[i])? } else { g.lower(&gpts[i])? }),
                        Some(l) if use_upper => g.upper_screened(&gpts[i], l)?,
                        Some(l) => g.lower_screened(&gpts[i], l)?,
                    };
                    match screened {
                        ZValue::Exact(z) => z,
                        ZValue::Beyond(zb) => {
                            if bounds[i].lcb + lambda * zb > best.map_or(f64::INFINITY, |(_, bj, _)| bj) {
                                continue;
                            }
                            // At the level exactly (rounding): the program to the end.
                            if use_upper { g.upper(&gpts[i])? } else { g.lower(&gpts[i])? }
                        }
                    }
                }
            };
            let j = bounds[i].lcb + lambda * z;
            if best.is_none_or(|(bi, bj, _)| j < bj || (j == bj && i < bi)) {
                best = Some((i, j, z));
            }
        }
        let (c, j_c, z_star) = best.ok_or_else(|| Error::Empty("COBOL search points".into()))?;
        // J(x^c) − min_x J(x) ≤ J(x^c) − min(J(x^c), the undecided candidates' floors): every
        // decided candidate has J ≥ J(x^c).
        info.gap = Some((j_c - undecided_floor).max(0.0));
        let gc = gpts.swap_remove(c);
        Ok((c, j_c, z_star, gc))
    }
}

/// What the local x^c search ([`XcSearch::Local`]) found: x^c, J(x^c), z(x^c) (g_lower, or g_upper
/// for λ < 0), f's bounds and g's prepared point at x^c, and the programs solved.
pub(crate) struct LocalFound {
    pub(crate) x: Vec<f64>,
    pub(crate) j: f64,
    pub(crate) z: f64,
    pub(crate) bounds: Bounds,
    pub(crate) point: GPoint,
    pub(crate) solved: usize,
    /// (J at the start, J at the end) of each local search, in start order (read by the tests).
    #[cfg_attr(not(test), expect(dead_code))]
    pub(crate) per_start: Vec<(f64, f64)>,
}

/// One evaluated point of the local search.
struct LocalPoint {
    x: Vec<f64>,
    j: f64,
    /// z(x), exact; NaN with λ = 0 (J = LCB needs no program; x^c's z is solved at the end).
    z: f64,
    bounds: Bounds,
    point: GPoint,
}

/// J(x) = LCB(x) + λ·z(x) at `x`, or `None` when x is certified not to improve on `incumbent`
/// (its enclosure of z, or a program stopped at the level, puts J(x) ≥ incumbent). `solved` counts
/// the programs.
fn local_eval(
    model: &FModel,
    g: &mut GModel,
    lambda: f64,
    x: &[f64],
    incumbent: Option<f64>,
    solved: &mut usize,
) -> Result<Option<LocalPoint>> {
    let bounds = model.bounds(x)?;
    let point = g.point(&model.working(x)?)?;
    let lcb = bounds.lcb;
    if lambda == 0.0 {
        if incumbent.is_some_and(|inc| lcb >= inc) {
            return Ok(None);
        }
        return Ok(Some(LocalPoint { x: x.to_vec(), j: lcb, z: f64::NAN, bounds, point }));
    }
    let use_upper = lambda < 0.0;
    let (zl, zh) = if use_upper { (point.upper_floor, point.upper_cap) } else { (point.lower_floor, point.lower_cap) };
    let floor = (lcb + lambda * zl).min(lcb + lambda * zh);
    if incumbent.is_some_and(|inc| floor >= inc) {
        return Ok(None);
    }
    let settled = if use_upper { point.settled_upper() } else { point.settled_lower() };
    let z = match (settled, incumbent) {
        (Some(z), _) => z,
        (None, None) => {
            *solved += 1;
            if use_upper { g.upper(&point)? } else { g.lower(&point)? }
        }
        (None, Some(inc)) => {
            *solved += 1;
            let level = (inc - lcb) / lambda;
            let screened = if use_upper { g.upper_screened(&point, level)? } else { g.lower_screened(&point, level)? };
            match screened {
                ZValue::Exact(z) => z,
                ZValue::Beyond(zb) if lcb + lambda * zb >= inc => return Ok(None),
                // At the level exactly (rounding): the program to the end.
                ZValue::Beyond(_) => {
                    if use_upper {
                        g.upper(&point)?
                    } else {
                        g.lower(&point)?
                    }
                }
            }
        }
    };
    Ok(Some(LocalPoint { x: x.to_vec(), j: lcb + lambda * z, z, bounds, point }))
}

/// The local x^c search of [`XcSearch::Local`]: from each start a compass search of J on the box
/// (coordinates scaled by the box's widths; poll x ± h·e_i in the order e_1+, e_1−, e_2+, …,
/// clamped to the box, skipping a poll the clamp leaves at x; move to the first poll with a
/// strictly smaller J and poll again around it with the same h; halve h, from ¼, after a poll
/// without a move; stop when h < 10⁻⁶ or after `evaluations` evaluations of J, the start
/// included). x^c: the smallest J over the starts, ties to the earliest start.
pub(crate) fn local_xc(
    model: &FModel,
    g: &mut GModel,
    domain: &BoxDomain,
    lambda: f64,
    starts: &[Vec<f64>],
    evaluations: usize,
) -> Result<LocalFound> {
    let (lo, hi) = (domain.lower(), domain.upper());
    let mut solved = 0;
    let mut best: Option<LocalPoint> = None;
    let mut per_start = Vec::with_capacity(starts.len());
    for start in starts {
        let mut cur = local_eval(model, g, lambda, start, None, &mut solved)?
            .ok_or_else(|| Error::invalid("search.local", "a start without a value"))?;
        let j_start = cur.j;
        let mut used = 1;
        let mut h = 0.25;
        'search: while used < evaluations && h >= 1e-6 {
            let mut moved = false;
            'poll: for i in 0..lo.len() {
                for sign in [1.0, -1.0] {
                    if used >= evaluations {
                        break 'search;
                    }
                    let mut y = cur.x.clone();
                    y[i] = (y[i] + sign * h * (hi[i] - lo[i])).clamp(lo[i], hi[i]);
                    if y[i] == cur.x[i] {
                        continue;
                    }
                    used += 1;
                    if let Some(p) = local_eval(model, g, lambda, &y, Some(cur.j), &mut solved)?
                        && p.j < cur.j
                    {
                        cur = p;
                        moved = true;
                        break 'poll;
                    }
                }
            }
            if !moved {
                h *= 0.5;
            }
        }
        per_start.push((j_start, cur.j));
        if best.as_ref().is_none_or(|b| cur.j < b.j) {
            best = Some(cur);
        }
    }
    let mut best = best.ok_or_else(|| Error::invalid("search.local.starts", "no start"))?;
    if best.z.is_nan() {
        // λ = 0: J = LCB; the dual update still needs g_lower(x^c).
        best.z = match best.point.settled_lower() {
            Some(z) => z,
            None => {
                solved += 1;
                g.lower(&best.point)?
            }
        };
    }
    Ok(LocalFound { x: best.x, j: best.j, z: best.z, bounds: best.bounds, point: best.point, solved, per_start })
}

/// argmin LCB(x) s.t. g_lower(x) ≤ 0 over the search points (COBOHL's x_t, the λ₀ = 0 ablation's
/// x^c), in increasing LCB order (ties to the first index): the first point whose g_lower is
/// certified ≤ 0; `None` if no point is feasible. Counts the programs solved in `info.solved`.
pub(super) fn constrained_argmin(
    g: &mut GModel,
    bounds: &[Bounds],
    gpts: &[GPoint],
    info: &mut StepInfo,
) -> Result<Option<usize>> {
    let mut order: Vec<usize> = (0..bounds.len()).collect();
    order.sort_by(|&a, &b| bounds[a].lcb.total_cmp(&bounds[b].lcb).then(a.cmp(&b)));
    for &i in &order {
        // g_lower ≤ lower_cap (ĝ(x), feasible points) and ≥ lower_floor.
        if gpts[i].lower_cap <= 0.0 {
            return Ok(Some(i));
        }
        if gpts[i].lower_floor > 0.0 {
            continue;
        }
        info.solved += 1;
        // Only whether g_lower ≤ 0 matters: the program may stop once it certifies > 0.
        let feasible = match g.lower_screened(&gpts[i], 0.0)? {
            ZValue::Exact(z) => z <= 0.0,
            ZValue::Beyond(b) if b > 0.0 => false,
            ZValue::Beyond(_) => g.lower(&gpts[i])? <= 0.0,
        };
        if feasible {
            return Ok(Some(i));
        }
    }
    Ok(None)
}
