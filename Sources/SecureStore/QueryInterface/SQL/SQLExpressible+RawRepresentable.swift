// A wrapper is what it wraps: a `RawRepresentable` type whose raw value is
// an expression, a selection or an ordering term declares the conformance
// and gets the raw value's. GRDB's defaults, for wrappers such as
// swift-tagged's `Tagged`:
//
//     extension Tagged: SQLExpressible where RawValue: SQLExpressible { }
//     extension Tagged: SQLSelectable where RawValue: SQLSelectable { }
//     extension Tagged: SQLOrderingTerm where RawValue: SQLOrderingTerm { }
//     extension Tagged: SQLSpecificExpressible where RawValue: SQLSpecificExpressible { }

extension SQLExpressible where Self: RawRepresentable, Self.RawValue: SQLExpressible {
    /// The raw value's expression.
    public var sqlExpression: SQLExpression { rawValue.sqlExpression }
}

extension SQLSelectable where Self: RawRepresentable, Self.RawValue: SQLSelectable {
    /// The raw value's selection.
    public var sqlSelection: SQLSelection { rawValue.sqlSelection }
}

extension SQLOrderingTerm where Self: RawRepresentable, Self.RawValue: SQLOrderingTerm {
    /// The raw value's ordering term.
    public var sqlOrdering: SQLOrdering { rawValue.sqlOrdering }
}

extension SQLSpecificExpressible where Self: RawRepresentable, Self.RawValue: SQLSpecificExpressible {}
