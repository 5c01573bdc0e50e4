import EffectKit

/// How an image of a given size sits in its `rect`: where it is drawn and the outline it is clipped to.
struct ImagePlacement: Sendable, Equatable {
    enum Fit: String, Sendable, CaseIterable {
        /// The whole image, as large as fits, centred; the rest of the rect stays empty (letterboxed).
        case contain
        /// The rect filled, the image as small as covers it, centred; what sticks out is cut off.
        case cover
        /// The image stretched to the rect.
        case fill
    }

    enum Clip: Sendable, Equatable {
        case none
        case rectangle(Rect)
        case roundedRectangle(Rect, radius: Double)
        /// The largest circle in the rect, centred (an avatar).
        case circle(center: Point, radius: Double)
    }

    /// Where the whole image is drawn, in points.
    let image: Rect
    /// The part that shows: the image's rect for contain and fill, the rect for cover.
    let visible: Rect
    let clip: Clip

    /// Places an image of `width` × `height` (pixels, or an SVG's own units: only the ratio counts).
    init(width: Double, height: Double, in rect: Rect, fit: Fit, radius: Double, circle: Bool) {
        switch fit {
        case .fill:
            image = rect
        case .contain, .cover:
            let scale =
                fit == .contain
                ? min(rect.width / width, rect.height / height) : max(rect.width / width, rect.height / height)
            image = Rect(center: rect.center, size: Size(width: width * scale, height: height * scale))
        }
        visible = fit == .cover ? rect : image
        if circle {
            clip = .circle(center: visible.center, radius: min(visible.width, visible.height) / 2)
        } else if radius > 0 {
            clip = .roundedRectangle(visible, radius: radius)
        } else if fit == .cover {
            clip = .rectangle(visible)
        } else {
            clip = .none
        }
    }
}
