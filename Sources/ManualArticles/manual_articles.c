// The DocC articles of the three catalogs, compiled into the binary with C23's #embed (as the studio's page
// is), so `renderfarm docs` reads them in any build, installed or not, without files beside the executable.
// ManualTests checks that this list and the catalogs' folders name the same files.
#include "manual_articles.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char article_0[] = {
#embed "../RenderFarm/RenderFarm.docc/AlphaPackedVideo.md"
};
static const unsigned char article_1[] = {
#embed "../RenderFarm/RenderFarm.docc/CommandLine.md"
};
static const unsigned char article_2[] = {
#embed "../RenderFarm/RenderFarm.docc/ComposingLayers.md"
};
static const unsigned char article_3[] = {
#embed "../RenderFarm/RenderFarm.docc/DataDrivenJobs.md"
};
static const unsigned char article_4[] = {
#embed "../RenderFarm/RenderFarm.docc/JobFileReference.md"
};
static const unsigned char article_5[] = {
#embed "../RenderFarm/RenderFarm.docc/OutputFolder.md"
};
static const unsigned char article_6[] = {
#embed "../RenderFarm/RenderFarm.docc/Performance.md"
};
static const unsigned char article_7[] = {
#embed "../RenderFarm/RenderFarm.docc/RenderFarm.md"
};
static const unsigned char article_8[] = {
#embed "../RenderFarm/RenderFarm.docc/RenderPhases.md"
};
static const unsigned char article_9[] = {
#embed "../RenderFarm/RenderFarm.docc/RunningOnACluster.md"
};
static const unsigned char article_10[] = {
#embed "../RenderFarm/RenderFarm.docc/Sound.md"
};
static const unsigned char article_11[] = {
#embed "../RenderFarm/RenderFarm.docc/Studio.md"
};
static const unsigned char article_12[] = {
#embed "../RenderFarm/RenderFarm.docc/UntrustedPlugins.md"
};
static const unsigned char article_13[] = {
#embed "../RenderFarm/RenderFarm.docc/VideoOutput.md"
};
static const unsigned char article_14[] = {
#embed "../RenderFarm/RenderFarm.docc/VideosAndTimelines.md"
};
static const unsigned char article_15[] = {
#embed "../EffectKit/EffectKit.docc/EffectKit.md"
};
static const unsigned char article_16[] = {
#embed "../EffectKit/EffectKit.docc/FloatingHeartMotion.md"
};
static const unsigned char article_17[] = {
#embed "../EffectKit/EffectKit.docc/FootageEffect.md"
};
static const unsigned char article_18[] = {
#embed "../EffectKit/EffectKit.docc/ImageEffect.md"
};
static const unsigned char article_19[] = {
#embed "../EffectKit/EffectKit.docc/LottieEffect.md"
};
static const unsigned char article_20[] = {
#embed "../EffectKit/EffectKit.docc/ParabolicDropMotion.md"
};
static const unsigned char article_21[] = {
#embed "../EffectKit/EffectKit.docc/PhysicsBounceMotion.md"
};
static const unsigned char article_22[] = {
#embed "../EffectKit/EffectKit.docc/ShapeEffect.md"
};
static const unsigned char article_23[] = {
#embed "../EffectKit/EffectKit.docc/StreamLengthEffects.md"
};
static const unsigned char article_24[] = {
#embed "../EffectKit/EffectKit.docc/TextEffect.md"
};
static const unsigned char article_25[] = {
#embed "../EffectKit/EffectKit.docc/UIKitDynamics.md"
};
static const unsigned char article_26[] = {
#embed "../EffectKit/EffectKit.docc/WritingAPlugin.md"
};
static const unsigned char article_27[] = {
#embed "../Motion/Motion.docc/KeyframePaths.md"
};
static const unsigned char article_28[] = {
#embed "../Motion/Motion.docc/Motion.md"
};
static const unsigned char article_29[] = {
#embed "../Motion/Motion.docc/Springs.md"
};
static const unsigned char article_30[] = {
#embed "../Motion/Motion.docc/TimingFunctions.md"
};
static const unsigned char article_31[] = {
#embed "../EffectKit/EffectKit.docc/ParticlesEffect.md"
};

#define ARTICLE(module, file, bytes) {module, file, bytes, sizeof bytes}

static const manual_article articles[] = {
    ARTICLE("RenderFarm", "AlphaPackedVideo.md", article_0),
    ARTICLE("RenderFarm", "CommandLine.md", article_1),
    ARTICLE("RenderFarm", "ComposingLayers.md", article_2),
    ARTICLE("RenderFarm", "DataDrivenJobs.md", article_3),
    ARTICLE("RenderFarm", "JobFileReference.md", article_4),
    ARTICLE("RenderFarm", "OutputFolder.md", article_5),
    ARTICLE("RenderFarm", "Performance.md", article_6),
    ARTICLE("RenderFarm", "RenderFarm.md", article_7),
    ARTICLE("RenderFarm", "RenderPhases.md", article_8),
    ARTICLE("RenderFarm", "RunningOnACluster.md", article_9),
    ARTICLE("RenderFarm", "Sound.md", article_10),
    ARTICLE("RenderFarm", "Studio.md", article_11),
    ARTICLE("RenderFarm", "UntrustedPlugins.md", article_12),
    ARTICLE("RenderFarm", "VideoOutput.md", article_13),
    ARTICLE("RenderFarm", "VideosAndTimelines.md", article_14),
    ARTICLE("EffectKit", "EffectKit.md", article_15),
    ARTICLE("EffectKit", "FloatingHeartMotion.md", article_16),
    ARTICLE("EffectKit", "FootageEffect.md", article_17),
    ARTICLE("EffectKit", "ImageEffect.md", article_18),
    ARTICLE("EffectKit", "LottieEffect.md", article_19),
    ARTICLE("EffectKit", "ParabolicDropMotion.md", article_20),
    ARTICLE("EffectKit", "ParticlesEffect.md", article_31),
    ARTICLE("EffectKit", "PhysicsBounceMotion.md", article_21),
    ARTICLE("EffectKit", "ShapeEffect.md", article_22),
    ARTICLE("EffectKit", "StreamLengthEffects.md", article_23),
    ARTICLE("EffectKit", "TextEffect.md", article_24),
    ARTICLE("EffectKit", "UIKitDynamics.md", article_25),
    ARTICLE("EffectKit", "WritingAPlugin.md", article_26),
    ARTICLE("Motion", "KeyframePaths.md", article_27),
    ARTICLE("Motion", "Motion.md", article_28),
    ARTICLE("Motion", "Springs.md", article_29),
    ARTICLE("Motion", "TimingFunctions.md", article_30),
};

size_t manual_article_count(void) { return sizeof articles / sizeof articles[0]; }

const manual_article *manual_article_at(size_t index) { return &articles[index]; }
