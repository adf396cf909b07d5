import Foundation
import SecureStore

// securestore-benchmark [--rows N] [--authors N] [--transactions N] [--rounds R] [--only TEXT]
//
// Measures W1-W6 (see BENCHMARKS.md) in one process, rounds interleaved,
// and prints medians with their ratio to the raw-C floor of the same run.
// Lines starting with "RESULT\t" are for scripts/bench.sh.

var rows = 100_000
var authors = 10_000
var transactions = 10_000
var rounds = 7
var only: [String] = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rows": rows = Int(arguments.next() ?? "") ?? rows
    case "--authors": authors = Int(arguments.next() ?? "") ?? authors
    case "--transactions": transactions = Int(arguments.next() ?? "") ?? transactions
    case "--rounds": rounds = Int(arguments.next() ?? "") ?? rounds
    case "--only": only.append(arguments.next() ?? "")
    default:
        FileHandle.standardError.write(Data("usage: securestore-benchmark [--rows N] [--authors N] [--transactions N] [--rounds R] [--only TEXT]...\n".utf8))
        exit(64)
    }
}

/// The targets of the performance issue (BENCHMARKS.md), as the highest
/// ratio to the floor, in both modes.
let targets: [String: Double] = [
    "W1 insert|Codable record": 1.3,
    "W1 insert|statement": 1.1,
    "W2 fetch|Decodable record": 1.3,
    "W2 fetch|Row": 1.05,
    "W4 rekey|changePassphrase": 1.1,
    "W4 rekey|Cipher.rekey (crash-safe)": 1.25,
    "W4 encrypt|Cipher.encrypt (crash-safe)": 1.25,
]

func log(_ text: String) { FileHandle.standardError.write(Data("\(text)\n".utf8)) }

// SecureStore makes its process-wide SQLite settings (memory statistics
// off) before SQLite initializes: first, so that the raw-C floor runs
// with the same settings, whichever case runs first.
log("SQLCipher \(SQLCipherLibrary.version)")
let scratch = try makeScratchDirectory()
defer { try? FileManager.default.removeItem(at: scratch) }
let workloads = Workloads(scratch: scratch, items: makeItems(count: rows))
/// False if every `--only` names a workload and mode ("W1 insert|plaintext",
/// or a whole case key) other than these: their cases are then not even
/// built (no files made), which keeps a one-case run short
/// (scripts/bench-instructions.sh).
@MainActor func wanted(_ workload: String, _ mode: String) -> Bool {
    let group = "\(workload)|\(mode)"
    return only.isEmpty || only.contains {
        !$0.contains("|") || $0.localizedCaseInsensitiveContains(group) || group.localizedCaseInsensitiveContains($0)
    }
}

var cases: [Case] = []
for mode in [Mode.encrypted, Mode.plaintext] {
    if wanted("W1 insert", mode.name) {
        cases += insertCases(items: workloads.items, file: workloads.path("w1-\(mode.name).db"), mode: mode.name, key: mode.key)
    }
    if wanted("W2 fetch", mode.name) {
        cases += fetchCases(items: workloads.items, file: try workloads.populatedFile("w2-\(mode.name).db", mode: mode),
                            mode: mode.name, key: mode.key)
    }
    if wanted("W1 insert", mode.name) || wanted("W2 fetch", mode.name) {
        cases += codableMachineryCases(items: workloads.items, mode: mode.name)
    }
    if wanted("W3 open", mode.name) { cases += try workloads.openCases(mode: mode) }
    if wanted("W5 associations", mode.name) {
        cases += try associationCases(library: makeLibrary(authors: authors), file: workloads.path("w5-\(mode.name).db"),
                                      mode: mode.name, key: mode.key)
    }
    if wanted("W6 observed commits", mode.name) {
        cases += observationCases(count: transactions, file: workloads.path("w6-\(mode.name).db"), mode: mode.name, key: mode.key)
    }
}
if wanted("W4 rekey", "encrypted") || wanted("W4 encrypt", "encrypted") { cases += try workloads.rekeyCases() }
if !only.isEmpty {
    cases = cases.filter { item in only.contains { key(item).localizedCaseInsensitiveContains($0) } }
}
log("\(cases.count) cases, \(rows) rows, \(rounds) rounds")
let samples = try runInterleaved(cases, rounds: rounds, log: log)

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

/// Wide enough for the longest variant and a space.
let variantWidth = max(28, (cases.map(\.variant.count).max() ?? 0) + 1)
print(pad("workload", 21) + pad("mode", 10) + pad("variant", variantWidth) + pad("median ms", 11) + pad("ratio", 7) + "target")
var misses = 0
for item in cases {
    let value = median(samples[key(item)] ?? [])
    let floorKey = "\(item.workload)|\(item.mode)|\(item.floor)"
    let floorValue = median(samples[floorKey] ?? [])
    let ratio = value / floorValue
    var verdict = ""
    if let target = targets["\(item.workload)|\(item.variant)"] {
        let met = ratio <= target
        if !met { misses += 1 }
        verdict = "<= \(format(target, 2))x " + (met ? "met" : "MISSED")
    }
    print(pad(item.workload, 21) + pad(item.mode, 10) + pad(item.variant, variantWidth)
          + pad(format(value * 1000, 2), 11) + pad(floorValue.isNaN ? "-" : format(ratio, 2) + "x", 7) + verdict)
    print("RESULT\tsecurestore\t\(item.workload)\t\(item.mode)\t\(item.variant)\t\(value * 1000)\t\(floorValue * 1000)")
}
// The pool's promise: its 2nd..Nth connection costs under 5 % of the first.
if let first = samples["W3 open|encrypted|passphrase"], let reader = samples["W3 open|encrypted|pool reader N"] {
    let share = median(reader) / median(first)
    if share >= 0.05 { misses += 1 }
    print("pool reader N / passphrase open (encrypted): \(format(share * 100, 1)) % (target < 5 %) \(share < 0.05 ? "met" : "MISSED")")
}
print("samples per figure: \(rounds); targets missed: \(misses)")
