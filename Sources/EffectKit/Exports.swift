// Effect authors import EffectKit alone: drawing (CairoKit) and JSON values come with it.
@_exported import CairoKit
@_exported import StrictJSON
