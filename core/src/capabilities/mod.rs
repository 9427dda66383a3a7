//! What the tools do, once, below every surface that offers it: typed input and output, no
//! argument JSON and no surface's wording. Each surface's tools are thin adapters over these
//! (`crate::tools`).

pub mod algorithms;
pub mod diagram;
pub mod reflections;
pub mod walk;
