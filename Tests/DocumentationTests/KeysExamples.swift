// The code of the KeysAndEncryption article.
import Foundation
import SecureStore

func openWithRawKey(at path: String, key: Data) throws -> DatabaseQueue {
    var config = Configuration()
    config.prepareDatabase { db in
        try db.useRawKey(key) // 32 bytes: no key derivation
    }
    return try DatabaseQueue(path: path, configuration: config)
}

func openLegacyFile(at path: String, passphrase: String) throws -> DatabaseQueue {
    var config = Configuration()
    config.cipherSettings = CipherSettings(pageSize: 4096, kdfIterations: 4000)
    config.prepareDatabase { db in
        try db.usePassphrase(passphrase)
    }
    return try DatabaseQueue(path: path, configuration: config)
}

func changeKey(of dbQueue: DatabaseQueue, to newPassphrase: String) throws {
    try dbQueue.write { db in
        try db.changePassphrase(newPassphrase)
    }
}

func encryptInPlace(plaintextFile path: String, passphrase: String) throws {
    let key = CipherKey(passphrase: passphrase)
    let summary = try Cipher.encrypt(plaintextAt: path, to: path, key: key)
    print("encrypted \(summary.rowCounts.count) tables")
}

func rotateFileKey(at path: String, from oldPassphrase: String, to newPassphrase: String) throws {
    // Bigger pages; the new passphrase gets the iteration count of a new file.
    let settings = CipherSettings(pageSize: 8192)
    try Cipher.rekey(at: path,
                     from: CipherKey(passphrase: oldPassphrase),
                     to: CipherKey(passphrase: newPassphrase, settings: settings))
}

func checkFile(at path: String, passphrase: String) throws -> Bool {
    let report = try Cipher.verify(at: path, key: CipherKey(passphrase: passphrase))
    return report.isOK
}

func hasWeakKeyDerivation(_ dbQueue: DatabaseQueue) throws -> Bool {
    let strength = try dbQueue.read { db in
        try db.cipherSettings.map(KeyDerivationStrength.init)
    }
    guard let strength, strength.isWeak else { return false }
    print(strength)  // weak: PBKDF2-HMAC-SHA1, 64,000 iterations; guidance 1,300,000
    return true
}

func openWithAKeyFromTheEnvironment(at path: String) throws -> DatabaseQueue {
    guard let passphrase = SecretBytes.takingEnvironmentVariable("APP_DB_PASSPHRASE") else {
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "APP_DB_PASSPHRASE is not set")
    }
    var config = Configuration()
    config.prepareDatabase { db in try db.usePassphrase(passphrase) }
    return try DatabaseQueue(path: path, configuration: config)
}

// Compiled, not run by the tests: it would change the test process for good.
func protectThisServer() throws {
    try ProcessProtection.enable()
}
