/// The renderer's version: part of every frame's fingerprint, recorded in every manifest and
/// printed by `renderfarm --version`.
package let rendererVersion = "0.4.0"
