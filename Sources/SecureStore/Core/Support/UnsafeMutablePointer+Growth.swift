extension UnsafeMutablePointer {
    /// New storage of twice `capacity` elements, holding the `count`
    /// elements moved out of this storage, which is freed; `capacity` is
    /// doubled.
    ///
    /// For buffers that grow one element at a time, in place of an array
    /// where an array costs more: unspecialized code (an array looks up its
    /// storage's metadata at each append), or a hot path that would check
    /// bounds on each read.
    ///
    /// ```swift
    /// if count == capacity { base = base.doubled(count: count, capacity: &capacity) }
    /// (base + count).initialize(to: element)
    /// count += 1
    /// ```
    @inlinable
    func doubled(count: Int, capacity: inout Int) -> UnsafeMutablePointer<Pointee> {
        let larger = UnsafeMutablePointer<Pointee>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: self, count: count)
        deallocate()
        capacity *= 2
        return larger
    }
}
