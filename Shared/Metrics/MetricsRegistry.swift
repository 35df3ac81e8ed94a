import Foundation
import Synchronization

/// Counters and histograms, rendered in the Prometheus text format (`/metrics`).
///
/// One lock guards all series; an update is a dictionary lookup and an add, cheap next to a
/// request. Series are identified by name plus sorted labels.
public final class MetricsRegistry: Sendable {
    private struct SeriesKey: Hashable, Sendable {
        let name: String
        let labels: [String]   // "key=\"value\"", sorted
    }

    private struct HistogramState: Sendable {
        var bucketCounts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
    }

    private struct State: Sendable {
        var help: [String: (type: String, text: String)] = [:]
        var counters: [SeriesKey: Double] = [:]
        var gauges: [SeriesKey: Double] = [:]
        var histograms: [SeriesKey: HistogramState] = [:]
        var bounds: [String: [Double]] = [:]
    }

    private let state = Mutex(State())

    /// Latency buckets in seconds, from 0.5 ms to 10 s.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Creates an empty registry.
    public init() {}

    /// Declares a counter's help text (optional; undeclared series render without it).
    public func describeCounter(_ name: String, _ help: String) {
        state.withLock { $0.help[name] = ("counter", help) }
    }

    /// Declares a gauge's help text.
    public func describeGauge(_ name: String, _ help: String) {
        state.withLock { $0.help[name] = ("gauge", help) }
    }

    /// Declares a histogram with its bucket upper bounds (seconds, ascending) and help text.
    public func describeHistogram(_ name: String, _ help: String, buckets: [Double] = MetricsRegistry.latencyBuckets) {
        state.withLock {
            $0.help[name] = ("histogram", help)
            $0.bounds[name] = buckets
        }
    }

    /// Adds `amount` to a counter.
    public func increment(_ name: String, _ labels: [String: String] = [:], by amount: Double = 1) {
        let key = Self.key(name, labels)
        state.withLock { $0.counters[key, default: 0] += amount }
    }

    /// Sets a gauge.
    public func set(_ name: String, _ labels: [String: String] = [:], to value: Double) {
        let key = Self.key(name, labels)
        state.withLock { $0.gauges[key] = value }
    }

    /// Records one observation (seconds, for latencies) in a histogram.
    public func observe(_ name: String, _ labels: [String: String] = [:], _ value: Double) {
        let key = Self.key(name, labels)
        state.withLock { state in
            let bounds = state.bounds[name] ?? Self.latencyBuckets
            var histogram = state.histograms[key] ?? HistogramState(bucketCounts: Array(repeating: 0, count: bounds.count))
            if let index = bounds.firstIndex(where: { value <= $0 }) {
                histogram.bucketCounts[index] += 1
            }
            histogram.sum += value
            histogram.count += 1
            state.histograms[key] = histogram
        }
    }

    /// A counter's current value (for tests and `$SRV.STATS`).
    public func counterValue(_ name: String, _ labels: [String: String] = [:]) -> Double {
        let key = Self.key(name, labels)
        return state.withLock { $0.counters[key] ?? 0 }
    }

    /// Every series in the Prometheus text exposition format (version 0.0.4).
    public func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        var names = Set(snapshot.counters.keys.map(\.name))
        names.formUnion(snapshot.gauges.keys.map(\.name))
        names.formUnion(snapshot.histograms.keys.map(\.name))
        for name in names.sorted() {
            if let help = snapshot.help[name] {
                out += "# HELP \(name) \(help.text)\n# TYPE \(name) \(help.type)\n"
            }
            for (key, value) in snapshot.counters.filter({ $0.key.name == name }).sorted(by: { $0.key.labels.lexicographicallyPrecedes($1.key.labels) }) {
                out += "\(name)\(Self.labelText(key.labels)) \(Self.number(value))\n"
            }
            for (key, value) in snapshot.gauges.filter({ $0.key.name == name }).sorted(by: { $0.key.labels.lexicographicallyPrecedes($1.key.labels) }) {
                out += "\(name)\(Self.labelText(key.labels)) \(Self.number(value))\n"
            }
            let bounds = snapshot.bounds[name] ?? Self.latencyBuckets
            for (key, histogram) in snapshot.histograms.filter({ $0.key.name == name }).sorted(by: { $0.key.labels.lexicographicallyPrecedes($1.key.labels) }) {
                var cumulative: UInt64 = 0
                for (bound, count) in zip(bounds, histogram.bucketCounts) {
                    cumulative += count
                    out += "\(name)_bucket\(Self.labelText(key.labels + ["le=\"\(Self.number(bound))\""])) \(cumulative)\n"
                }
                out += "\(name)_bucket\(Self.labelText(key.labels + ["le=\"+Inf\""])) \(histogram.count)\n"
                out += "\(name)_sum\(Self.labelText(key.labels)) \(Self.number(histogram.sum))\n"
                out += "\(name)_count\(Self.labelText(key.labels)) \(histogram.count)\n"
            }
        }
        return out
    }

    private static func key(_ name: String, _ labels: [String: String]) -> SeriesKey {
        SeriesKey(name: name, labels: labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(escape($0.value))\"" })
    }

    private static func labelText(_ labels: [String]) -> String {
        labels.isEmpty ? "" : "{\(labels.joined(separator: ","))}"
    }

    private static func escape(_ value: String) -> String {
        // Label values rarely need escaping; checking the bytes first keeps updates cheap.
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }) else {
            return value
        }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
