internal import CSQLCipher
import Foundation

/// Every call into FTS5's C API (`fts5_api`): finding a tokenizer of the
/// connection (built in or registered) and registering a Swift one.
///
/// FTS5 hands out its API through `SELECT fts5(?)` with a pointer bound by
/// `sqlite3_bind_pointer` (SQLite 3.20 and later). That function is looked
/// up at run time, so that this file also builds against SQLite 3.15.2's
/// headers, whose library has no FTS5.
enum FTS5TokenizerBridge {
    private typealias BindPointer = @convention(c) (
        OpaquePointer?, CInt, UnsafeMutableRawPointer?, UnsafePointer<CChar>?,
        (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    ) -> CInt

    private static let bindPointer: BindPointer? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "sqlite3_bind_pointer") else { return nil }
        return unsafeBitCast(symbol, to: BindPointer.self)
    }()

    /// The type name FTS5 checks on the bound pointer.
    private static let apiPointerType: StaticString = "fts5_api_ptr"

    /// The connection's `fts5_api`.
    static func api(_ db: Database) throws -> UnsafeMutablePointer<fts5_api> {
        try FTS5.require(in: db)
        guard let bindPointer else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "FTS5's API needs SQLite 3.20 or later (sqlite3_bind_pointer)")
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db.sqliteConnection, "SELECT fts5(?)", -1, &statement, nil) == SQLITE_OK else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "FTS5's API is not available on this connection")
        }
        defer { sqlite3_finalize(statement) }
        var api: UnsafeMutablePointer<fts5_api>?
        let type = UnsafeRawPointer(apiPointerType.utf8Start).assumingMemoryBound(to: CChar.self)
        _ = withUnsafeMutablePointer(to: &api) { bindPointer(statement, 1, UnsafeMutableRawPointer($0), type, nil) }
        _ = sqlite3_step(statement)
        guard let api else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "FTS5's API is not available on this connection")
        }
        return api
    }

    /// A tokenizer of the connection, made with `arguments`.
    static func makeTokenizer(_ db: Database, name: String, arguments: [String]) throws -> any FTS5Tokenizer {
        let api = try api(db)
        var userData: UnsafeMutableRawPointer?
        var methods = fts5_tokenizer()
        let found = api.pointee.xFindTokenizer(api, name, &userData, &methods)
        guard found == SQLITE_OK, let create = methods.xCreate else {
            throw DatabaseError(resultCode: ResultCode(rawValue: found), message: "no FTS5 tokenizer named \(name)")
        }
        let cArguments = arguments.map { UnsafePointer<CChar>(strdup($0)) }
        defer { cArguments.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        var handle: OpaquePointer?
        let created = cArguments.withUnsafeBufferPointer { buffer in
            create(userData, UnsafeMutablePointer(mutating: buffer.baseAddress), CInt(buffer.count), &handle)
        }
        guard created == SQLITE_OK, let handle else {
            throw DatabaseError(resultCode: ResultCode(rawValue: created == SQLITE_OK ? SQLITE_ERROR : created),
                                message: "the FTS5 tokenizer \(name) refused its arguments \(arguments)")
        }
        return FoundTokenizer(methods: methods, handle: handle)
    }

    /// Registers a tokenizer that `make` builds, under `name`, for this
    /// connection.
    static func register(_ db: Database, name: String,
                         make: @escaping (Database, [String]) throws -> any FTS5Tokenizer) throws {
        let api = try api(db)
        let constructor = Unmanaged.passRetained(Constructor(db: db, make: make)).toOpaque()
        var methods = fts5_tokenizer(xCreate: createTokenizer, xDelete: deleteTokenizer, xTokenize: tokenize)
        let code = api.pointee.xCreateTokenizer(api, name, constructor, &methods, destroyConstructor)
        guard code == SQLITE_OK else {
            Unmanaged<Constructor>.fromOpaque(constructor).release()
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register the FTS5 tokenizer \(name)")
        }
    }

    /// A tokenizer found in the connection, deleted with it.
    private final class FoundTokenizer: FTS5Tokenizer {
        let methods: fts5_tokenizer
        let handle: OpaquePointer

        init(methods: fts5_tokenizer, handle: OpaquePointer) {
            self.methods = methods
            self.handle = handle
        }

        deinit { methods.xDelete?(handle) }

        func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
                      nText: CInt, tokenCallback: @escaping FTS5TokenCallback) -> CInt {
            methods.xTokenize?(handle, context, tokenization.rawValue, pText, nText, tokenCallback) ?? SQLITE_ERROR
        }
    }

    /// What FTS5 keeps for a registered tokenizer: how to make one.
    private final class Constructor {
        weak var db: Database?
        let make: (Database, [String]) throws -> any FTS5Tokenizer

        init(db: Database, make: @escaping (Database, [String]) throws -> any FTS5Tokenizer) {
            self.db = db
            self.make = make
        }
    }

    /// One tokenizer FTS5 made from a ``Constructor``.
    private final class Made {
        let tokenizer: any FTS5Tokenizer
        init(_ tokenizer: any FTS5Tokenizer) { self.tokenizer = tokenizer }
    }

    private static let createTokenizer: @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafePointer<CChar>?>?, CInt, UnsafeMutablePointer<OpaquePointer?>?
    ) -> CInt = { constructorPointer, argv, argc, output in
        guard let constructorPointer, let output else { return SQLITE_ERROR }
        let constructor = Unmanaged<Constructor>.fromOpaque(constructorPointer).takeUnretainedValue()
        guard let db = constructor.db else { return SQLITE_ERROR }
        let arguments = (0..<Int(argc)).compactMap { argv?[$0].map { String(cString: $0) } }
        do {
            let made = Unmanaged.passRetained(Made(try constructor.make(db, arguments)))
            output.pointee = OpaquePointer(made.toOpaque())
            return SQLITE_OK
        } catch let error as DatabaseError {
            return error.extendedResultCode.rawValue
        } catch {
            return SQLITE_ERROR
        }
    }

    private static let deleteTokenizer: @convention(c) (OpaquePointer?) -> Void = { handle in
        guard let handle else { return }
        Unmanaged<Made>.fromOpaque(UnsafeRawPointer(handle)).release()
    }

    private static let tokenize: @convention(c) (
        OpaquePointer?, UnsafeMutableRawPointer?, CInt, UnsafePointer<CChar>?, CInt, FTS5TokenCallback?
    ) -> CInt = { handle, context, flags, text, length, callback in
        guard let handle, let callback else { return SQLITE_ERROR }
        let made = Unmanaged<Made>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
        return made.tokenizer.tokenize(context: context, tokenization: FTS5Tokenization(rawValue: flags),
                                       pText: text, nText: length, tokenCallback: callback)
    }

    private static let destroyConstructor: @convention(c) (UnsafeMutableRawPointer?) -> Void = { constructorPointer in
        guard let constructorPointer else { return }
        Unmanaged<Constructor>.fromOpaque(constructorPointer).release()
    }
}
