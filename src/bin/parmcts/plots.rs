//! SVG plots of `parmcts scale`'s speedups against threads, one line per mode, with the
//! ideal line (plotters).

use std::path::Path;

use plotters::prelude::*;

use parmcts::harness::scale::ScaleReport;

type Series = Vec<(String, Vec<(f64, f64)>)>;

/// Writes `<game>-throughput.svg` and `<game>-strength.svg` into `dir`.
pub fn write(report: &ScaleReport, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let mut modes: Vec<&str> = report.throughput.iter().map(|t| t.mode).filter(|&m| m != "seq").collect();
    modes.dedup();
    let throughput: Series = modes
        .iter()
        .map(|&mode| {
            let points = report
                .throughput
                .iter()
                .filter(|t| t.mode == mode)
                .filter_map(|t| Some((t.threads as f64, t.ratio_to_seq?)))
                .collect();
            (mode.to_string(), points)
        })
        .collect();
    let strength: Series = modes
        .iter()
        .map(|&mode| {
            let points = report
                .strength_speedup
                .iter()
                .filter(|s| s.mode == mode)
                .filter_map(|s| Some((s.threads as f64, s.speedup.at()?)))
                .collect();
            (mode.to_string(), points)
        })
        .collect();
    let name = |metric: &str| dir.join(format!("{}-{metric}.svg", report.game));
    chart(&name("throughput"), &format!("{}: throughput speedup", report.game), &throughput)?;
    chart(&name("strength"), &format!("{}: strength speedup (T = {} ms)", report.game, report.time_ms), &strength)?;
    Ok(())
}

fn chart(path: &Path, title: &str, series: &Series) -> Result<(), Box<dyn std::error::Error>> {
    let points = series.iter().flat_map(|(_, p)| p.iter());
    let max_x = points.clone().map(|p| p.0).fold(2.0, f64::max);
    let max_y = points.map(|p| p.1).fold(max_x, f64::max);
    let root = SVGBackend::new(path, (640, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..max_x * 1.05, 0f64..max_y * 1.1)?;
    chart.configure_mesh().x_desc("threads").y_desc("speedup over the sequential search").draw()?;
    let ideal = BLACK.mix(0.4);
    chart
        .draw_series(LineSeries::new(vec![(0.0, 0.0), (max_x, max_x)], ideal))?
        .label("ideal")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], ideal));
    for (i, (mode, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))?
            .label(mode.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE)
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
