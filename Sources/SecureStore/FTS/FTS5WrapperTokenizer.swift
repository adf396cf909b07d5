/// What an ``FTS5WrapperTokenizer`` calls for each token it keeps or adds.
public typealias FTS5WrapperTokenCallback = (_ token: String, _ flags: FTS5TokenFlags) throws -> Void

/// A Swift tokenizer that works on the tokens of another one: drops stop
/// words, adds synonyms (``FTS5TokenFlags/colocated``), folds characters.
///
/// ```swift
/// func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
///             tokenCallback: FTS5WrapperTokenCallback) throws {
///     try tokenCallback(token, flags)
///     if token == "first" { try tokenCallback("1st", flags.union(.colocated)) }
/// }
/// ```
///
/// ## Topics
///
/// ### Wrapping
///
/// - ``wrappedTokenizer``
/// - ``accept(token:flags:for:tokenCallback:)``
public protocol FTS5WrapperTokenizer: FTS5CustomTokenizer {
    /// The tokenizer whose tokens this one receives.
    var wrappedTokenizer: any FTS5Tokenizer { get }

    /// Called for each token of ``wrappedTokenizer``: call `tokenCallback`
    /// for each token to output (none drops it).
    func accept(token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
                tokenCallback: FTS5WrapperTokenCallback) throws
}

extension FTS5WrapperTokenizer {
    /// Runs ``wrappedTokenizer`` and passes each of its tokens through
    /// ``accept(token:flags:for:tokenCallback:)``.
    public func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
                         nText: CInt, tokenCallback: @escaping FTS5TokenCallback) -> CInt {
        let relay = FTS5TokenRelay(wrapper: self, context: context, tokenization: tokenization, output: tokenCallback)
        return withExtendedLifetime(relay) {
            wrappedTokenizer.tokenize(context: Unmanaged.passUnretained(relay).toOpaque(), tokenization: tokenization,
                                      pText: pText, nText: nText) { relayPointer, flags, pToken, nToken, start, end in
                guard let relayPointer else { return ResultCode.SQLITE_ERROR.rawValue }
                let relay = Unmanaged<FTS5TokenRelay>.fromOpaque(relayPointer).takeUnretainedValue()
                return relay.accept(pToken, nToken, flags: flags, start: start, end: end)
            }
        }
    }
}

/// Carries a wrapper's tokens from its wrapped tokenizer to FTS5.
final class FTS5TokenRelay {
    let wrapper: any FTS5WrapperTokenizer
    let context: UnsafeMutableRawPointer?
    let tokenization: FTS5Tokenization
    let output: FTS5TokenCallback

    init(wrapper: any FTS5WrapperTokenizer, context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization,
         output: @escaping FTS5TokenCallback) {
        self.wrapper = wrapper
        self.context = context
        self.tokenization = tokenization
        self.output = output
    }

    func accept(_ pToken: UnsafePointer<CChar>?, _ nToken: CInt, flags: CInt, start: CInt, end: CInt) -> CInt {
        guard let token = FTS5TokenText.string(pToken, nToken) else { return ResultCode.SQLITE_OK.rawValue }
        do {
            try wrapper.accept(token: token, flags: FTS5TokenFlags(rawValue: flags), for: tokenization) { token, flags in
                var bytes = Array(token.utf8CString)
                let code = bytes.withUnsafeMutableBufferPointer { buffer in
                    output(context, flags.rawValue, buffer.baseAddress, CInt(buffer.count - 1), start, end)
                }
                guard code == ResultCode.SQLITE_OK.rawValue else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "FTS5 refused a token")
                }
            }
            return ResultCode.SQLITE_OK.rawValue
        } catch let error as DatabaseError {
            return error.extendedResultCode.rawValue
        } catch {
            return ResultCode.SQLITE_ERROR.rawValue
        }
    }
}
