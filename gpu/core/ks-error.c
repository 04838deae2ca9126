#include "config.h"

#include "ks-error.h"

G_DEFINE_QUARK (ks-error-quark, ks_error)
