import Foundation
import SecureStore
import TestSupport

/// A client that has a database open while the tool runs, as a service has
/// during a deploy: a SecureStore pool or queue (in this process), the
/// `sqlcipher` shell in WAL or rollback-journal mode, or PyPI's
/// `sqlcipher3` (other processes). It sits idle, reads, or writes rows
/// continuously, and records every write it was told succeeded.
///
/// ```swift
/// let client = try LiveClient.start(.pool, .writing, path: file, keying: keying)
/// let result = try tool(["rekey", file, ...])
/// let acknowledged = try client.stop()    // every id it was told it wrote
/// ```
///
/// `@unchecked Sendable`: the state is shared with the client's threads
/// under `lock` only.
final class LiveClient: @unchecked Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case pool = "SecureStore pool"
        case queue = "SecureStore queue"
        case shellWAL = "sqlcipher shell, WAL"
        case shellRollback = "sqlcipher shell, rollback journal"
        case python = "Python sqlcipher3, WAL"
    }

    enum Activity: String, CaseIterable, Sendable {
        case idle, reading, writing
    }

    /// How every kind of client keys the file.
    struct Keying: Sendable {
        /// For SecureStore (nil: a plaintext file).
        var key: CipherKey?
        /// For the shell and Python: `PRAGMA key = ...; PRAGMA ...;`
        /// (empty: a plaintext file).
        var pragmas: String
    }

    /// The rows clients write: ids from here up.
    static let firstWrittenID = 1000

    let kind: Kind
    let activity: Activity
    private let lock = NSLock()
    private var acknowledged: [Int] = []
    private var errors: [String] = []
    private var reads = 0
    private var stopping = false
    private var exited = false
    private var finished = false
    private let progress = DispatchSemaphore(value: 0)
    private var process: Process?
    private var input: FileHandle?
    private let inputLock = NSLock()
    private var inputClosed = false
    /// Signalled when a client in another process has answered ``writeOnce(_:)``.
    private let markerArrived = DispatchSemaphore(value: 0)
    /// The SecureStore client's database.
    private var writer: (any DatabaseWriter)?
    private var worker: Thread?
    private let done = DispatchSemaphore(value: 0)

    private init(kind: Kind, activity: Activity) {
        self.kind = kind
        self.activity = activity
        // A client that exits early must not take this process with it.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Starts a client on `path`; returns once it has the file open and has
    /// read it, and, reading or writing, once it has done so once: the
    /// tool then runs while the client is in that state.
    static func start(_ kind: Kind, _ activity: Activity, path: String, keying: Keying,
                      python: String?) throws -> LiveClient {
        let client = LiveClient(kind: kind, activity: activity)
        switch kind {
        case .pool, .queue: try client.startInProcess(path: path, keying: keying)
        case .shellWAL, .shellRollback: try client.startShell(path: path, keying: keying)
        case .python: try client.startPython(path: path, keying: keying, python: python)
        }
        // Ready (opened and read), then one more event when active; a
        // client that exits first wakes this too.
        for _ in 0..<(activity == .idle ? 1 : 2) {
            guard client.progress.wait(timeout: .now() + 60) == .success, !client.hasExited else {
                _ = try? client.stop()
                throw LiveClientError("the \(kind.rawValue) client did not get ready: \(client.errorsSoFar)")
            }
        }
        return client
    }

    /// Ends the activity, closes the database, and returns the ids of the
    /// rows the client was told it wrote.
    func stop() throws -> [Int] {
        lock.withLock { stopping = true }
        // The shell's input is closed by the thread that writes to it.
        if kind == .python { closeInput() }
        guard done.wait(timeout: .now() + 60) == .success else {
            if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw LiveClientError("the \(kind.rawValue) client did not stop")
        }
        process?.waitUntilExit()
        return lock.withLock { acknowledged }
    }

    /// The pid of a client in another process.
    var processIdentifier: Int32? { process?.processIdentifier }

    /// Whether a SecureStore client sees `table` now (nil for the others).
    func seesTable(_ table: String) -> Bool? {
        try? writer?.read { db in try db.tableExists(table) }
    }

    /// Writes the row `id` once more, as a service would after the tool
    /// ran; true when the client was told it succeeded (it is then among
    /// the acknowledged rows).
    func writeOnce(_ id: Int) -> Bool {
        switch kind {
        case .pool, .queue:
            _ = insertInProcess(id)
        case .shellWAL, .shellRollback:
            send("INSERT INTO live (id) VALUES (\(id)); SELECT 'live-ack ' || id FROM live WHERE id = \(id); \n.print live-done \(id)\n")
            _ = markerArrived.wait(timeout: .now() + 30)
        case .python:
            send("write \(id)\n")
            _ = markerArrived.wait(timeout: .now() + 30)
        }
        return lock.withLock { acknowledged.contains(id) }
    }

    /// What the client reported as errors, for messages.
    var errorsSoFar: [String] { lock.withLock { Array(errors.prefix(5)) } }

    private var isStopping: Bool { lock.withLock { stopping } }
    private var hasExited: Bool { lock.withLock { exited } }

    private func record(ack id: Int?, read: Bool = false, error: String? = nil) {
        let first: Bool = lock.withLock {
            if let id { acknowledged.append(id) }
            if let error { errors.append(error) }
            if read { reads += 1 }
            let events = acknowledged.count + reads
            return (id != nil || read) && events == 1
        }
        if first { progress.signal() }
    }

    // MARK: SecureStore, in this process

    private func startInProcess(path: String, keying: Keying) throws {
        var config = keying.key?.configuration() ?? Configuration()
        config.busyMode = .timeout(0.5)
        let writer: any DatabaseWriter = kind == .pool
            ? try DatabasePool(path: path, configuration: config)
            : try DatabaseQueue(path: path, configuration: config)
        _ = try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM live") }
        self.writer = writer
        progress.signal()
        let activity = activity
        worker = Thread { [self] in
            var next = Self.firstWrittenID
            while !isStopping {
                switch activity {
                case .idle:
                    usleep(2_000)
                case .reading:
                    do {
                        _ = try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM live") }
                        record(ack: nil, read: true)
                    } catch {
                        record(ack: nil, error: "\(error)")
                    }
                    usleep(2_000)
                case .writing:
                    if insertInProcess(next) { next += 1 }
                    // A row every 2 ms, as the other clients write.
                    usleep(2_000)
                }
            }
            try? writer.close()
            done.signal()
        }
        worker?.start()
    }

    /// Inserts the row `id` through the SecureStore client, and records
    /// the outcome; true when it succeeded.
    private func insertInProcess(_ id: Int) -> Bool {
        do {
            try writer?.write { db in try db.execute(sql: "INSERT INTO live (id) VALUES (?)", arguments: [id]) }
            record(ack: id)
            return true
        } catch {
            record(ack: nil, error: "\(error)")
            return false
        }
    }

    // MARK: The sqlcipher shell

    private func startShell(path: String, keying: Keying) throws {
        let mode = kind == .shellWAL ? "WAL" : "DELETE"
        try launch(CommandLineClient.sqlcipherPath, ["-batch", path])
        send("""
            .output /dev/null
            \(keying.pragmas)
            PRAGMA journal_mode = \(mode);
            .output stdout
            SELECT 'live-ready ' || count(*) FROM live;

            """)
        let activity = activity
        worker = Thread { [self] in
            var next = Self.firstWrittenID
            while !isStopping {
                switch activity {
                case .idle:
                    break
                case .reading:
                    send("SELECT 'live-read ' || count(*) FROM live;\n")
                case .writing:
                    // Acknowledged only if the row is there afterwards.
                    send("INSERT INTO live (id) VALUES (\(next)); SELECT 'live-ack ' || id FROM live WHERE id = \(next);\n")
                    next += 1
                }
                usleep(2_000)
            }
            closeInput()
        }
        worker?.start()
    }

    // MARK: Python's sqlcipher3

    private static let pythonClient = """
        import os, queue, sys, time, threading, sqlcipher3
        path, activity = sys.argv[1], sys.argv[2]
        db = sqlcipher3.connect(path, timeout=0.5, isolation_level=None)
        for pragma in filter(None, (p.strip() for p in os.environ["LIVE_PRAGMAS"].split(";"))):
            db.execute(pragma).fetchall()
        db.execute("PRAGMA journal_mode = WAL").fetchall()
        print("live-ready %d" % db.execute("SELECT count(*) FROM live").fetchone()[0], flush=True)
        requests = queue.Queue()
        def read_requests():
            for line in sys.stdin:
                requests.put(line.strip())
            requests.put(None)
        threading.Thread(target=read_requests, daemon=True).start()
        n = int(sys.argv[3])
        def insert(row):
            try:
                db.execute("INSERT INTO live (id) VALUES (?)", (row,))
                print("live-ack %d" % row, flush=True)
            except Exception as error:
                print("live-error %s" % error, flush=True)
        while True:
            try:
                request = requests.get_nowait()
            except queue.Empty:
                request = ""
            if request is None:
                break
            if request.startswith("write "):
                insert(int(request[6:]))
                print("live-done %s" % request[6:], flush=True)
                continue
            if activity == "writing":
                insert(n)
                n += 1
            elif activity == "reading":
                try:
                    print("live-read %d" % db.execute("SELECT count(*) FROM live").fetchone()[0], flush=True)
                except Exception as error:
                    print("live-error %s" % error, flush=True)
            time.sleep(0.002)
        db.close()
        """

    private func startPython(path: String, keying: Keying, python: String?) throws {
        guard let python else { throw LiveClientError("no Python sqlcipher3 (scripts/python-sqlcipher.sh)") }
        try launch(python, ["-c", Self.pythonClient, path, activity.rawValue, String(Self.firstWrittenID)],
                   environment: ["LIVE_PRAGMAS": keying.pragmas])
    }

    // MARK: Processes

    private func launch(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let lines = LineReader(stdout.fileHandleForReading)
        Thread.detachNewThread { [self] in
            while let line = lines.next() {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                switch words.first {
                case "live-ready": progress.signal()
                case "live-ack": record(ack: words.count > 1 ? Int(words[1]) : nil)
                case "live-read": record(ack: nil, read: true)
                case "live-error": record(ack: nil, error: words.count > 1 ? words[1] : line)
                case "live-done": markerArrived.signal()
                default: break
                }
            }
            process.waitUntilExit()
            lock.withLock { exited = true }
            progress.signal()
            done.signal()
        }
        Thread.detachNewThread { [self] in
            let errors = stderr.fileHandleForReading.readDataToEndOfFile()
            let text = String(decoding: errors, as: UTF8.self)
            if !text.isEmpty { lock.withLock { self.errors.append(text) } }
        }
    }

    /// Writes to the process's standard input (nothing once it is closed),
    /// one request at a time.
    private func send(_ text: String) {
        inputLock.withLock {
            guard let input, !inputClosed else { return }
            try? input.write(contentsOf: Data(text.utf8))
        }
    }

    /// Closes the process's standard input: the client ends.
    private func closeInput() {
        inputLock.withLock {
            guard !inputClosed else { return }
            inputClosed = true
            try? input?.close()
        }
    }
}

struct LiveClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The lines of a pipe, as they arrive.
private final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...end)
                return line
            }
            let chunk = handle.availableData
            guard !chunk.isEmpty else {
                defer { buffer.removeAll() }
                return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self)
            }
            buffer.append(chunk)
        }
    }
}
