import Foundation

/// One measured thing: a workload (W1...), a mode (encrypted or plaintext)
/// and a variant (raw C, statement, codable...). `run` prepares what it
/// needs, then returns the seconds of the timed part only.
struct Case {
    var workload: String
    var mode: String
    var variant: String
    /// The variant of the same workload and mode this one is divided by.
    var floor: String
    var run: () throws -> Double
}

/// Seconds taken by `body`, on the monotonic clock.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Runs every case once per round, in the same order each round, so that
/// a slow spell of the shared machine hits every variant alike; reports
/// medians.
func runInterleaved(_ cases: [Case], rounds: Int, log: (String) -> Void) throws -> [String: [Double]] {
    var samples: [String: [Double]] = [:]
    for round in 1...rounds {
        for item in cases {
            let time = try item.run()
            samples[key(item), default: []].append(time)
        }
        log("round \(round)/\(rounds) done")
    }
    return samples
}

func key(_ item: Case) -> String { "\(item.workload)|\(item.mode)|\(item.variant)" }

/// A fresh scratch folder, removed at exit by the caller.
func makeScratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("securestore-benchmark-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.removeItem(at: url)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func removeDatabase(_ path: String) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}

func copyDatabase(_ source: String, to destination: String) throws {
    removeDatabase(destination)
    try FileManager.default.copyItem(atPath: source, toPath: destination)
}
