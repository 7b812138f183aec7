import CurtainCore
import CurtainctlSupport

/// A dependency-free SVG plot: one panel per series, stacked, each with its own y range,
/// sharing the x axis. Good enough to eyeball a curve or a timeline's tracks.
struct SVGPlot {
    struct Panel {
        var name: String
        var points: [(Double, Double)]
        /// Points drawn as dots (the values that were printed).
        var marks: [(Double, Double)]
    }

    var title: String
    var xLabel: String
    var panels: [Panel]

    let width = 640.0, panelHeight = 180.0, margin = 56.0, gap = 28.0

    func render() -> String {
        let all = panels.flatMap { $0.points + $0.marks }
        let xs = all.map(\.0).filter(\.isFinite)
        let x0 = xs.min() ?? 0
        let x1 = max(xs.max() ?? 1, (xs.min() ?? 0) + 1e-9)
        let height = margin * 1.5 + Double(panels.count) * (panelHeight + gap)
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(margin)" y="20" font-size="14">\(escape(title))</text>

            """
        for (index, panel) in panels.enumerated() {
            let top = 36 + Double(index) * (panelHeight + gap)
            let ys = (panel.points + panel.marks).map(\.1).filter(\.isFinite)
            var y0 = min(ys.min() ?? 0, 0)
            var y1 = max(ys.max() ?? 1, 1)
            if y1 - y0 < 1e-12 {
                y0 -= 0.5
                y1 += 0.5
            }
            let plotWidth = width - 2 * margin
            func px(_ x: Double) -> Double { margin + (x - x0) / (x1 - x0) * plotWidth }
            func py(_ y: Double) -> Double { top + panelHeight - (y - y0) / (y1 - y0) * panelHeight }
            svg +=
                "<rect x=\"\(margin)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(panelHeight)\" fill=\"none\" stroke=\"#ccc\"/>\n"
            for y in [0.0, 1.0] where y >= y0 && y <= y1 {
                svg +=
                    "<line x1=\"\(margin)\" x2=\"\(width - margin)\" y1=\"\(py(y))\" y2=\"\(py(y))\" stroke=\"#eee\"/>\n"
            }
            svg +=
                "<text x=\"4\" y=\"\(py(y1) + 10)\">\(label(y1))</text><text x=\"4\" y=\"\(py(y0))\">\(label(y0))</text>\n"
            svg +=
                "<text x=\"\(width - margin - 4)\" y=\"\(top + 14)\" text-anchor=\"end\" fill=\"#335\">\(escape(panel.name))</text>\n"
            let path = panel.points.filter { $0.1.isFinite }.map { "\(px($0.0)),\(py($0.1))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\" points=\"\(path)\"/>\n"
            for mark in panel.marks where mark.1.isFinite {
                svg += "<circle cx=\"\(px(mark.0))\" cy=\"\(py(mark.1))\" r=\"2.5\" fill=\"#d1242f\"/>\n"
            }
        }
        let bottom = height - margin / 2
        svg += "<text x=\"\(margin)\" y=\"\(bottom)\">\(label(x0))</text>"
        svg += "<text x=\"\(width - margin)\" y=\"\(bottom)\" text-anchor=\"end\">\(label(x1))</text>"
        svg += "<text x=\"\(width / 2)\" y=\"\(bottom)\" text-anchor=\"middle\">\(escape(xLabel))</text>\n</svg>\n"
        return svg
    }

    /// Axis labels: four decimals are plenty for reading a plot.
    private func label(_ value: Double) -> String { Format.number((value * 1e4).rounded() / 1e4) }

    private func escape(_ text: String) -> String {
        text.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }
}

extension String {
    func replacingAll(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
