// PKNetwork: ProcedureKitNetwork's procedures for URLSession (data, download, upload), NetworkProcedure with its
// resilience policy, HTTP status validation, and a connectivity provider that is honest about what Linux can know.
//
// Importing PKNetwork also imports PKCore.
@_exported import PKCore

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
