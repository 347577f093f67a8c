//! What a run means: medians and ratios per scenario, rule set and mode, as
//! a text table, a Markdown report and SVG charts.

use crate::modes::Mode;
use crate::rulesets::Spec;
use crate::stats::{summarize, Summary};
use crate::suite::{Results, Sample, Scenario};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One metric of one scenario with one rule set, across modes.
#[derive(Clone, Debug)]
pub struct Row {
    /// The scenario.
    pub scenario: Scenario,
    /// The metric.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// The rule set.
    pub rule_set: String,
    /// Rules in the set.
    pub rules: usize,
    /// Per mode.
    pub modes: BTreeMap<Mode, Summary>,
}

impl Row {
    /// median(a) / median(b).
    pub fn ratio(&self, a: Mode, b: Mode) -> Option<f64> {
        Some(self.modes.get(&a)?.median / self.modes.get(&b)?.median)
    }

    /// The widest spread of any mode.
    pub fn spread(&self) -> f64 {
        self.modes.values().map(|s| s.spread).fold(0.0, f64::max)
    }
}

/// The rows of a run, in run order.
pub fn rows(results: &Results) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    for g in &results.groups {
        let mine: Vec<&Sample> = results
            .samples
            .iter()
            .filter(|s| s.scenario == g.scenario && s.rule_set == g.rule_set.name)
            .collect();
        let mut metrics: Vec<(&str, &str)> = Vec::new();
        for s in &mine {
            if !metrics.iter().any(|(m, _)| *m == s.metric) {
                metrics.push((&s.metric, &s.unit));
            }
        }
        for (metric, unit) in metrics {
            let mut modes = BTreeMap::new();
            for &mode in &g.modes {
                let v: Vec<f64> = mine
                    .iter()
                    .filter(|s| s.metric == metric && s.mode == mode)
                    .map(|s| s.value)
                    .collect();
                if let Some(sum) = summarize(&v) {
                    modes.insert(mode, sum);
                }
            }
            out.push(Row {
                scenario: g.scenario,
                metric: metric.to_string(),
                unit: unit.to_string(),
                rule_set: g.rule_set.name.clone(),
                rules: g.rule_set.rules,
                modes,
            });
        }
    }
    out
}

fn value(v: f64, unit: &str) -> String {
    match unit {
        "ns/op" if v >= 10_000.0 => format!("{:.1} µs", v / 1000.0),
        "ns/op" => format!("{v:.1} ns"),
        "s" => format!("{v:.2} s"),
        u => format!("{v:.2} {u}"),
    }
}

fn cell(row: &Row, mode: Mode) -> String {
    row.modes
        .get(&mode)
        .map_or("-".into(), |s| value(s.median, &row.unit))
}

fn ratio(r: Option<f64>) -> String {
    r.map_or("-".into(), |r| format!("{r:.2}"))
}

const HEAD: [&str; 10] = [
    "scenario",
    "metric",
    "rules",
    "off",
    "kernel",
    "fastaudit",
    "kernel/off",
    "fastaudit/off",
    "fastaudit/kernel",
    "spread",
];

fn cells(row: &Row) -> [String; 10] {
    [
        row.scenario.name().to_string(),
        row.metric.clone(),
        format!("{} ({})", row.rule_set, row.rules),
        cell(row, Mode::Off),
        cell(row, Mode::Kernel),
        cell(row, Mode::Fastaudit),
        ratio(row.ratio(Mode::Kernel, Mode::Off)),
        ratio(row.ratio(Mode::Fastaudit, Mode::Off)),
        ratio(row.ratio(Mode::Fastaudit, Mode::Kernel)),
        format!("{:.0}%", row.spread() * 100.0),
    ]
}

/// The fastaudit-base mode beside fastaudit, per row that has both: the
/// earlier build's and this one's value, ratio to off and added cost.
pub fn baseline_lines(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows {
        let (Some(base), Some(new)) = (
            row.modes.get(&Mode::FastauditBase),
            row.modes.get(&Mode::Fastaudit),
        ) else {
            continue;
        };
        if out.is_empty() {
            out.push("\nfastaudit-base (--baseline) vs fastaudit:".to_string());
        }
        let off = row.modes.get(&Mode::Off).map(|o| o.median);
        let added = |v: f64| off.map_or("-".into(), |o| value(v - o, &row.unit));
        out.push(format!(
            "  {} {} rules={}: base {} ({}x off, +{}), fastaudit {} ({}x off, +{})",
            row.scenario.name(),
            row.metric,
            row.rule_set,
            value(base.median, &row.unit),
            ratio(row.ratio(Mode::FastauditBase, Mode::Off)),
            added(base.median),
            value(new.median, &row.unit),
            ratio(row.ratio(Mode::Fastaudit, Mode::Off)),
            added(new.median),
        ));
    }
    out
}

/// The residue of `auditctl -e 0` without `-a never,task`, as a sentence.
pub fn residue(results: &Results) -> Option<String> {
    let row = rows(results)
        .into_iter()
        .find(|r| r.modes.contains_key(&Mode::OffResidue))?;
    let (res, off) = (row.modes[&Mode::OffResidue], row.modes.get(&Mode::Off)?);
    Some(format!(
        "audit switched off (-e 0) after having been on, without -a never,task: getpid {} vs {} with never,task ({:.2}x)",
        value(res.median, &row.unit),
        value(off.median, &row.unit),
        res.median / off.median
    ))
}

/// The audited scenario's events for one rule set and mode: counts summed
/// over rounds, the rate a median.
struct Accounting {
    rule_set: String,
    mode: Mode,
    generated: f64,
    logged: f64,
    lost: f64,
    unaccounted: f64,
    events_per_s: f64,
}

impl Accounting {
    /// Rule set, mode, generated, logged, lost, unaccounted, events/s.
    fn cells(&self) -> [String; 7] {
        [
            self.rule_set.clone(),
            self.mode.name().to_string(),
            self.generated.to_string(),
            self.logged.to_string(),
            self.lost.to_string(),
            self.unaccounted.to_string(),
            format!("{:.0}", self.events_per_s),
        ]
    }
}

/// The audited scenario's event accounting, per rule set and audited mode.
fn accounting(results: &Results) -> Vec<Accounting> {
    let mut out = Vec::new();
    for g in results
        .groups
        .iter()
        .filter(|g| g.scenario == Scenario::Audited)
    {
        for &mode in &g.modes {
            let samples: Vec<&Sample> = results
                .samples
                .iter()
                .filter(|s| {
                    s.scenario == g.scenario && s.rule_set == g.rule_set.name && s.mode == mode
                })
                .collect();
            if samples.is_empty() || mode == Mode::Off {
                continue;
            }
            let values = |k: &str| -> Vec<f64> {
                samples
                    .iter()
                    .filter_map(|s| s.events.get(k))
                    .copied()
                    .collect()
            };
            let sum = |k: &str| values(k).iter().sum();
            out.push(Accounting {
                rule_set: g.rule_set.name.clone(),
                mode,
                generated: sum("generated"),
                logged: sum("logged"),
                lost: sum("lost"),
                unaccounted: sum("unaccounted"),
                events_per_s: crate::stats::median(&values("events_per_s")),
            });
        }
    }
    out
}

/// The plain-text table printed at the end of a run.
pub fn table(results: &Results) -> String {
    let rows = rows(results);
    let mut lines: Vec<[String; 10]> = vec![HEAD.map(str::to_string)];
    lines.extend(rows.iter().map(cells));
    let widths: Vec<usize> = (0..10)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for l in &lines {
        let mut line = String::new();
        for (i, c) in l.iter().enumerate() {
            let pad = widths[i] - c.chars().count();
            if i < 3 {
                let _ = write!(line, "{c}{}  ", " ".repeat(pad));
            } else {
                let _ = write!(line, "{}{c}  ", " ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if let Some(r) = residue(results) {
        let _ = writeln!(out, "\n{r}");
    }
    for line in baseline_lines(&rows) {
        let _ = writeln!(out, "{line}");
    }
    let acc = accounting(results);
    if !acc.is_empty() {
        let _ = writeln!(out, "\naudited fchmodat, events summed over rounds:");
        for a in acc {
            let [set, mode, generated, logged, lost, unaccounted, rate] = a.cells();
            let _ = writeln!(
                out,
                "  rules={set} {mode}: generated {generated} logged {logged} lost {lost} unaccounted {unaccounted}; {rate} events/s to the log"
            );
        }
    }
    for g in &results.groups {
        for (mode, why) in &g.not_run {
            let _ = writeln!(
                out,
                "{} rules={}: {mode} not run: {why}",
                g.scenario.name(),
                g.rule_set.name
            );
        }
    }
    for n in &results.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// Write `report.md` and its charts into `dir`.
pub fn write_report(results: &Results, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let rows = rows(results);
    let chart = rule_count_chart(results, &rows, &dir.join("getpid-rules.svg"))
        .map_err(|e| std::io::Error::other(format!("drawing the chart: {e}")))?;
    let f = &results.facts;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# fastaudit bench{}\n",
        if results.quick { " (quick)" } else { "" }
    );
    let _ = writeln!(
        md,
        "Kernel {} ({}), {} CPUs ({}), {} MiB; {}. Single-threaded workloads pinned to CPU {}. \
         Modes run interleaved in every round (off, kernel, fastaudit); each value is the median \
         of the rounds, each round's value the median of its worker's batches. Spread is \
         (max - min) / median over the rounds. Ratios below 1 mean cheaper.\n",
        f.kernel,
        f.machine,
        f.cpus,
        f.cpu_model,
        f.memory_mib,
        f.audit_userspace,
        results
            .pinned_cpu
            .map_or("(none)".into(), |c| c.to_string())
    );
    if !f.hooks.probed.is_empty() {
        let _ = writeln!(
            md,
            "BPF hook kinds, as fastaudit probed them:\n\n{}\n",
            f.hooks
                .probed
                .iter()
                .map(|l| format!("- {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    if chart {
        let _ = writeln!(
            md,
            "## getpid cost against the number of rules\n\n![getpid: added ns per call over no audit, by rule count](getpid-rules.svg)\n"
        );
    }
    let _ = writeln!(md, "## Medians and ratios\n");
    let _ = writeln!(md, "| {} |", HEAD.join(" | "));
    let _ = writeln!(md, "|{}", "---|".repeat(HEAD.len()));
    for r in &rows {
        let _ = writeln!(md, "| {} |", cells(r).join(" | "));
    }
    if let Some(r) = residue(results) {
        let _ = writeln!(md, "\nResidue: {r}.");
    }
    let acc = accounting(results);
    if !acc.is_empty() {
        let _ = writeln!(
            md,
            "\n## Audited fchmodat: events (summed over rounds)\n\n| rules | mode | generated | logged | lost | unaccounted | events/s to the log |\n|---|---|---|---|---|---|---|"
        );
        for a in acc {
            let _ = writeln!(md, "| {} |", a.cells().join(" | "));
        }
    }
    let _ = writeln!(md, "\n## Rule sets\n");
    for g in &results.groups {
        let _ = writeln!(
            md,
            "- {} / {}: {} rules, {} lines left out; fastaudit hooks: {}{}",
            g.scenario.name(),
            g.rule_set.name,
            g.rule_set.rules,
            g.rule_set.left_out.len(),
            if g.fastaudit_hooks.is_empty() {
                "none".to_string()
            } else {
                g.fastaudit_hooks.join("; ")
            },
            g.not_run
                .iter()
                .map(|(m, why)| format!("; {m} not run: {why}"))
                .collect::<String>()
        );
    }
    for n in &results.notes {
        let _ = writeln!(md, "- {n}");
    }
    std::fs::write(dir.join("report.md"), md)
}

/// getpid: added ns per call over `off`, against the rule count, per mode.
/// Returns whether there was anything to draw.
fn rule_count_chart(
    results: &Results,
    rows: &[Row],
    path: &Path,
) -> Result<bool, Box<dyn std::error::Error>> {
    let count = |name: &str| {
        results
            .groups
            .iter()
            .find(|g| g.scenario == Scenario::Getpid && g.rule_set.name == name)
            .and_then(|g| match g.rule_set.spec {
                Spec::None => Some(0),
                Spec::NonMatching { count } => Some(count),
                _ => None,
            })
    };
    let mut points: Vec<(u32, &Row)> = rows
        .iter()
        .filter(|r| r.scenario == Scenario::Getpid)
        .filter_map(|r| Some((count(&r.rule_set)?, r)))
        .collect();
    points.sort_by_key(|(c, _)| *c);
    if points.is_empty() {
        return Ok(false);
    }
    let added = |r: &Row, m: Mode| Some(r.modes.get(&m)?.median - r.modes.get(&Mode::Off)?.median);
    type Series = (Mode, RGBColor, Vec<(f64, f64)>);
    // Log scale: the kernel's cost spans three decades, fastaudit's stays
    // in one. Differences under 1 ns (noise around zero) are drawn at 1 ns.
    let series: Vec<Series> = [
        (Mode::Kernel, RGBColor(200, 40, 40)),
        (Mode::Fastaudit, RGBColor(30, 100, 200)),
    ]
    .into_iter()
    .map(|(m, c)| {
        let pts = points
            .iter()
            .enumerate()
            .filter_map(|(i, (_, r))| Some((i as f64, added(r, m)?.max(1.0))))
            .collect();
        (m, c, pts)
    })
    .collect();
    let ymax = series
        .iter()
        .flat_map(|(_, _, p)| p.iter().map(|&(_, y)| y))
        .fold(10.0, f64::max)
        * 2.0;
    let labels: Vec<String> = points.iter().map(|(c, _)| c.to_string()).collect();
    let root = SVGBackend::new(path, (760, 440)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "getpid(): ns added per call over no audit (log scale)",
            ("sans-serif", 20),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            -0.3f64..(points.len() as f64 - 0.7),
            (1f64..ymax).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_labels(points.len())
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 0.01 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc("non-matching rules (-S chmod -F auid=N)")
        .y_desc("ns per call added")
        .draw()?;
    for (mode, color, pts) in series {
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
            .label(mode.name())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    root.present()?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(median: f64) -> Summary {
        Summary {
            n: 3,
            median,
            min: median,
            max: median,
            spread: 0.0,
        }
    }

    #[test]
    fn the_baseline_build_is_reported_beside_fastaudit() {
        let mut modes = BTreeMap::new();
        modes.insert(Mode::Off, summary(80.0));
        modes.insert(Mode::FastauditBase, summary(140.0));
        modes.insert(Mode::Fastaudit, summary(100.0));
        let row = Row {
            scenario: Scenario::Getpid,
            metric: "getpid".into(),
            unit: "ns/op".into(),
            rule_set: "stig".into(),
            rules: 42,
            modes,
        };
        let lines = baseline_lines(std::slice::from_ref(&row));
        assert_eq!(
            lines[1],
            "  getpid getpid rules=stig: base 140.0 ns (1.75x off, +60.0 ns), \
             fastaudit 100.0 ns (1.25x off, +20.0 ns)"
        );
        let mut alone = row;
        alone.modes.remove(&Mode::FastauditBase);
        assert!(
            baseline_lines(&[alone]).is_empty(),
            "no baseline mode, no lines"
        );
    }
}
