// Effect authors import EffectKit alone: drawing (CairoKit), timing and paths (Motion) and JSON values come with it.
@_exported import CairoKit
@_exported import Motion
@_exported import StrictJSON
