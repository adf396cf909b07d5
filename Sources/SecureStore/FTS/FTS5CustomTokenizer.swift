/// An FTS5 tokenizer written in Swift, registered on a connection with
/// ``Database/add(tokenizer:)`` and named in a table's definition.
///
/// ```swift
/// final class StopWords: FTS5WrapperTokenizer {
///     static let name = "stop_words"
///     let wrappedTokenizer: any FTS5Tokenizer
///     init(db: Database, arguments: [String]) throws {
///         wrappedTokenizer = try db.makeTokenizer(.unicode61())
///     }
///     func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
///                 tokenCallback: FTS5WrapperTokenCallback) throws {
///         if token != "the" { try tokenCallback(token, flags) }
///     }
/// }
/// config.prepareDatabase { db in db.add(tokenizer: StopWords.self) }
/// try db.create(virtualTable: "book_ft", using: FTS5()) { t in
///     t.tokenizer = StopWords.tokenizerDescriptor()
///     t.column("title")
/// }
/// ```
///
/// ## Topics
///
/// ### Registering
///
/// - ``name``
/// - ``init(db:arguments:)``
/// - ``tokenizerDescriptor(arguments:)``
public protocol FTS5CustomTokenizer: FTS5Tokenizer {
    /// The name tables give after `tokenize=`.
    static var name: String { get }

    /// A tokenizer for a table, from the arguments its definition gives
    /// after the name.
    init(db: Database, arguments: [String]) throws
}

extension FTS5CustomTokenizer {
    /// The descriptor that names this tokenizer, with `arguments`.
    public static func tokenizerDescriptor(arguments: [String] = []) -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: [name] + arguments)
    }
}

extension Database {
    /// Registers a Swift tokenizer on this connection (call it in
    /// `Configuration.prepareDatabase`, so that every connection of a pool
    /// has it).
    ///
    /// Stops the program when the library has no FTS5, as GRDB does: check
    /// ``FTS5/isAvailable(in:)`` first where that can happen.
    public func add(tokenizer: (some FTS5CustomTokenizer).Type) {
        do {
            try FTS5TokenizerBridge.register(self, name: tokenizer.name) { db, arguments in
                try tokenizer.init(db: db, arguments: arguments)
            }
        } catch {
            fatalError("cannot register the FTS5 tokenizer \(tokenizer.name): \(error)")
        }
    }
}
