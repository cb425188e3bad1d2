//! Pagination: an opaque `cursor` in, an opaque `nextCursor` out.
//!
//! An empty string is a valid cursor, never the end of the list; the list ends when a
//! result has no `nextCursor`. Each list method has its own params type (so that it can
//! name its method and result); [`PaginatedRequestParams`] is the shared shape.

use crate::common::paginated_params;

paginated_params!(@base
    /// The params of any paginated list request (`PaginatedRequestParams`). Convert it
    /// into a method's own params type with `From`.
    PaginatedRequestParams
);
