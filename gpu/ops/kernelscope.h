/* kernelscope.h: the engine's public API. C, GLib, no GTK. */
#pragma once

#include "ks-device.h"
#include "ks-engine.h"
#include "ks-error.h"
#include "ks-image.h"
#include "ks-launch.h"
#include "ks-op.h"
#include "ks-op-registry.h"
#include "ks-overlay.h"
