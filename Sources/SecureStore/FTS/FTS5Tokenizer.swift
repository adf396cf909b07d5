import Foundation

/// The function an FTS5 tokenizer calls for each token it finds: the
/// context it was given, the token's flags, its bytes and length, and where
/// it starts and ends in the text. It returns SQLite's result code.
public typealias FTS5TokenCallback = @convention(c) (
    _ context: UnsafeMutableRawPointer?, _ flags: CInt, _ pToken: UnsafePointer<CChar>?, _ nToken: CInt,
    _ iStart: CInt, _ iEnd: CInt
) -> CInt

/// Why FTS5 asks for tokens: a document being indexed, a query, a prefix
/// query, or an auxiliary function.
public struct FTS5Tokenization: OptionSet, Sendable {
    /// FTS5's `FTS5_TOKENIZE_*` bits.
    public let rawValue: CInt

    /// Flags from FTS5's bits.
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// Tokens of a `MATCH` query (`FTS5_TOKENIZE_QUERY`).
    public static let query = FTS5Tokenization(rawValue: 0x0001)
    /// With ``query``: the token is a prefix (`abc*`).
    public static let prefix = FTS5Tokenization(rawValue: 0x0002)
    /// Tokens of a document being indexed.
    public static let document = FTS5Tokenization(rawValue: 0x0004)
    /// Tokens for an auxiliary function such as `highlight()`.
    public static let aux = FTS5Tokenization(rawValue: 0x0008)
}

/// The flags of one token.
public struct FTS5TokenFlags: OptionSet, Sendable {
    /// FTS5's `FTS5_TOKEN_*` bits.
    public let rawValue: CInt

    /// Flags from FTS5's bits.
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// A synonym at the same position as the previous token.
    public static let colocated = FTS5TokenFlags(rawValue: 0x0001)
}

/// An FTS5 tokenizer: one of the connection's (``Database/makeTokenizer(_:)``)
/// or one written in Swift (``FTS5CustomTokenizer``).
///
/// ```swift
/// let tokenizer = try db.makeTokenizer(.unicode61())
/// try tokenizer.tokenize(query: "Gustave Doré")   // [("gustave", []), ("dore", [])]
/// ```
///
/// ## Topics
///
/// ### Tokenizing
///
/// - ``tokenize(query:)``
/// - ``tokenize(document:)``
/// - ``tokenize(context:tokenization:pText:nText:tokenCallback:)``
public protocol FTS5Tokenizer: AnyObject {
    /// Splits the `nText` bytes of UTF-8 at `pText` into tokens, calling
    /// `tokenCallback` with `context` for each; returns SQLite's result
    /// code (0 for success).
    func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
                  nText: CInt, tokenCallback: @escaping FTS5TokenCallback) -> CInt
}

extension FTS5Tokenizer {
    /// The tokens of `string` as FTS5 indexes a document.
    public func tokenize(document string: String) throws -> [(token: String, flags: FTS5TokenFlags)] {
        try collectTokens(of: string, for: .document)
    }

    /// The tokens of `string` as FTS5 reads a query.
    public func tokenize(query string: String) throws -> [(token: String, flags: FTS5TokenFlags)] {
        try collectTokens(of: string, for: .query)
    }

    private func collectTokens(of string: String, for tokenization: FTS5Tokenization)
    throws -> [(token: String, flags: FTS5TokenFlags)] {
        let tokens = FTS5CollectedTokens()
        var bytes = Array(string.utf8CString)
        let code = withExtendedLifetime(tokens) {
            bytes.withUnsafeMutableBufferPointer { buffer in
                tokenize(context: Unmanaged.passUnretained(tokens).toOpaque(), tokenization: tokenization,
                         pText: buffer.baseAddress, nText: CInt(buffer.count - 1)) { context, flags, pToken, nToken, _, _ in
                    guard let context else { return ResultCode.SQLITE_ERROR.rawValue }
                    if let token = FTS5TokenText.string(pToken, nToken) {
                        Unmanaged<FTS5CollectedTokens>.fromOpaque(context).takeUnretainedValue().list.append((token, FTS5TokenFlags(rawValue: flags)))
                    }
                    return ResultCode.SQLITE_OK.rawValue
                }
            }
        }
        guard code == ResultCode.SQLITE_OK.rawValue else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        return tokens.list
    }
}

/// The tokens ``FTS5Tokenizer/tokenize(query:)`` collects.
final class FTS5CollectedTokens {
    var list: [(token: String, flags: FTS5TokenFlags)] = []
}

/// Token bytes to and from Swift strings.
enum FTS5TokenText {
    /// The token's text; nil when it is not UTF-8.
    static func string(_ bytes: UnsafePointer<CChar>?, _ count: CInt) -> String? {
        guard let bytes else { return nil }
        return String(bytes: UnsafeRawBufferPointer(start: bytes, count: Int(count)), encoding: .utf8)
    }
}

extension Database {
    /// A tokenizer of this connection: a built-in one (`ascii`,
    /// `unicode61`, `porter`, `trigram`) or one registered with
    /// ``add(tokenizer:)``.
    ///
    /// ```swift
    /// let tokenizer = try db.makeTokenizer(.porter())
    /// let tokens = try tokenizer.tokenize(document: "running plans").map(\.token)   // ["run", "plan"]
    /// ```
    public func makeTokenizer(_ descriptor: FTS5TokenizerDescriptor) throws -> any FTS5Tokenizer {
        try FTS5TokenizerBridge.makeTokenizer(self, name: descriptor.components[0],
                                              arguments: Array(descriptor.components.dropFirst()))
    }
}
