import Foundation
import Testing

/// The plugin header compiles as plugin authors compile it: with cairo.h before it, after it or not at all, as
/// strict C99, C11 and C++, every warning an error, and a plugin using every inline helper and the companion
/// library's declaration links into a library.
@Suite("renderfarm_plugin.h under every C standard")
struct HeaderCompileTests {
    /// A plugin that uses the header's helpers; `cairoFirst`: cairo.h included before the header (nil: not at all).
    static func source(cairoFirst: Bool?) -> String {
        let cairo = "#include <cairo.h>\n"
        return (cairoFirst == true ? cairo : "") + "#include \"renderfarm_plugin.h\"\n"
            + (cairoFirst == false ? cairo : "") + """
                #include <string.h>
                static int create(const rf_create_args *args, const rf_context *ctx, void **out, char *err, size_t errlen) {
                    char path[64];
                    rf_random random = rf_random_start(rf_derive_seed(ctx->seed, 1));
                    (void)args; (void)rf_random_uniform(&random, 0, 1);
                    if (rf_path_inside(ctx->job_dir, "x", path, sizeof path, err, errlen) != RF_OK) return RF_ERROR_PARAMS;
                    *out = NULL;
                    return RF_OK;
                }
                static int render(void *instance, struct _cairo *cr, const rf_frame *frame, char *err, size_t errlen) {
                    (void)instance; (void)cr; (void)frame; (void)err; (void)errlen;
                    return RF_OK;
                }
                static int key(void *instance, const rf_frame *frame, uint8_t *out) {
                    rf_key_hasher hasher = rf_key_start();
                    (void)instance;
                    rf_key_u64(&hasher, frame->index);
                    rf_key_string(&hasher, "a", strlen("a"));
                    rf_key_finish(&hasher, out);
                    return RF_OK;
                }
                static void destroy(void *instance) { (void)instance; }
                static int sounds(void *instance, rf_sound_fn add, void *user) {
                    rf_sound sound = {sizeof(rf_sound), "a.wav", -1, 0, 0, 0, 1, 1, 0};
                    (void)instance;
                    add(user, &sound);
                    return RF_OK;
                }
                static int moments(void *instance, rf_moment_fn add, void *user) {
                    rf_moment moment = {sizeof(rf_moment), 0, "land", 0.5};
                    (void)instance;
                    add(user, &moment);
                    return RF_OK;
                }
                static const char *folder = NULL;
                static const rf_plugin descriptor = {
                    RF_ABI_VERSION, sizeof(rf_plugin), "header-check", "org.example.header-check", "1.0.0", "a check",
                    RF_THREADS_FULL, NULL, 0, create, render, NULL, destroy, 0, NULL, NULL, NULL, key, NULL, NULL, NULL,
                    &folder, sounds, moments,
                };
                #ifdef __cplusplus
                extern "C"
                #endif
                const rf_plugin *rf_plugin_main(uint32_t host) { return host == RF_ABI_VERSION ? &descriptor : NULL; }

                """
    }

    static let compilers: [(name: String, driver: String, flags: [String])] = [
        ("C99", "cc", ["-x", "c", "-std=c99", "-pedantic"]),
        ("C11", "cc", ["-x", "c", "-std=c11", "-pedantic"]),
        ("C++17", "c++", ["-x", "c++", "-std=c++17", "-pedantic"]),
    ]

    @Test(
        "each standard, with cairo.h before, after or not at all: no warning, and the companion library links",
        arguments: [true, false, nil] as [Bool?])
    func compiles(cairoFirst: Bool?) throws {
        let folder = try TemporaryFolder()
        let file = try folder.write(Self.source(cairoFirst: cairoFirst), to: "plugin.src")
        let include = Binary.packageRoot.appendingPathComponent("Sources/RenderFarmPluginABI/include").path
        let kit = Binary.packageRoot.appendingPathComponent("Sources/RenderFarmPluginKit/plugin_kit.c").path
        let cairo = try Tools.run("/usr/bin/pkg-config", ["--cflags", "cairo"]).text.split(separator: " ")
            .map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        // The companion library as `make install` builds it.
        let object = folder.url.appendingPathComponent("plugin_kit.o").path
        let built = try Tools.run(
            "/usr/bin/cc",
            ["-std=c99", "-fPIC", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", include, "-c", kit, "-o", object])
        #expect(built.status == 0, "\(built.stderr)")
        for compiler in Self.compilers {
            let library = folder.url.appendingPathComponent("lib-\(compiler.name).so").path
            let result = try Tools.run(
                "/usr/bin/" + compiler.driver,
                compiler.flags + ["-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I", include] + cairo
                    + [file, "-x", "none", object, "-o", library])
            #expect(
                result.status == 0,
                "\(compiler.name), cairo.h \(cairoFirst.map { $0 ? "first" : "after" } ?? "absent"): \(result.stderr)")
        }
    }
}
