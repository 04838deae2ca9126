/* ks-kernels.h: C entry points of the CUDA kernels (launchers only, no policy).
 *
 * Every launcher checks its preconditions, launches on the given stream and
 * returns cudaGetLastError(). Pitches are in bytes. Compiles as C and C++.
 */
#pragma once

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "ks-kernel-common.h"
#include "ks-op-list.h"

KS_KERNEL_BEGIN_DECLS

/* out = f(a, b): RGBA8 inputs; RGBA8 output, or GRAY8 when the op writes gray.
 * b may be NULL for one-input ops. Instrumentation is recorded when cov.writes
 * is not NULL. The geometry is honoured exactly: pixels no thread reaches are
 * not written. */
cudaError_t ks_cuda_elementwise_launch (KsElementwiseId op,
                                        KsGeometry geom,
                                        const uint8_t *a, size_t a_pitch,
                                        const uint8_t *b, size_t b_pitch,
                                        uint8_t *out, size_t out_pitch,
                                        KsPixelParams params,
                                        KsCoverageBuffers cov,
                                        cudaStream_t stream);

/* Attributes (registers, static shared memory, max threads per block) of the
 * kernel that ks_cuda_elementwise_launch would launch for this geometry. */
cudaError_t ks_cuda_elementwise_attributes (KsElementwiseId op,
                                            KsGeometry geom,
                                            int instrumented,
                                            struct cudaFuncAttributes *attr);

/* 256-bin histograms of R, G, B and BT.601 luma (rounded) of an RGBA8 image, or
 * of the single channel of a GRAY8 image (channels == 1: the first
 * KS_HIST_BINS counters only). bins has KS_HIST_DEVICE_WORDS words, all zero
 * when allocated: the launch counts into the set at
 * bins + ks_histogram_set_offset (generation) and clears the set of
 * generation + 1. A set is KS_HIST_COPIES copies of the counters, each
 * KS_HIST_COPY_WORDS words apart; the histogram is their sum. The caller
 * numbers its launches on bins 0, 1, 2, … in stream order, counting only those
 * that returned cudaSuccess, and reads the result of launch g at its set until
 * launch g + 2. Coverage records the pixels read. */
cudaError_t ks_cuda_histogram_launch (KsHistogramMethod method,
                                      KsGeometry geom,
                                      int channels,
                                      const uint8_t *src, size_t pitch,
                                      uint32_t *bins, uint64_t generation,
                                      KsCoverageBuffers cov,
                                      cudaStream_t stream);

/* The shared method's limit: `per_thread` shared-memory atomics (a multiple
 * of KS_SHARED_ATOMICS_GROUP, else cudaErrorInvalidValue) from each thread of
 * the grid into the interleaved copies of the bins the histogram kernel has
 * (ks_histogram_columns), at the bins it meets on uniformly random pixels,
 * with no global memory read and no other work per atomic. sink has one word
 * per block. */
#define KS_SHARED_ATOMICS_GROUP 16u
cudaError_t ks_cuda_shared_atomics_launch (int channels, KsDim3 grid, KsDim3 block,
                                           uint32_t per_thread, uint32_t *sink,
                                           cudaStream_t stream);

/* The histogram's read limit: the histogram kernel's walk and loads over the
 * image with geom (GRAY8 for channels 1, RGBA8 for KS_HIST_CHANNELS), nothing
 * counted. sink has one word per block; a thread stores the XOR of the words
 * it read there only when that equals KS_HIST_READ_MARK, so the loads stay
 * live and a test can make an image that folds to it. */
#define KS_HIST_READ_MARK 0x9e3779b9u
cudaError_t ks_cuda_histogram_read_launch (KsGeometry geom, int channels, const uint8_t *src,
                                           size_t pitch, uint32_t *sink, cudaStream_t stream);

/* Dynamic shared memory the histogram kernel asks for with this block. */
size_t ks_cuda_histogram_shared_bytes (KsHistogramMethod method, int channels, KsDim3 block);

cudaError_t ks_cuda_histogram_attributes (KsHistogramMethod method,
                                          KsGeometry geom,
                                          int channels,
                                          int instrumented,
                                          struct cudaFuncAttributes *attr);



/* Blocks of the kernel that the matching launcher would pick that fit on one
 * multiprocessor (cudaOccupancyMaxActiveBlocksPerMultiprocessor) with the
 * geometry's block and `shared` bytes of dynamic shared memory: what the
 * occupancy calculator of ks-launch.h is checked against. An op kind's own
 * header (ks-filter.h, ks-resize.h) declares its launchers the same way. */
cudaError_t ks_cuda_elementwise_occupancy (KsElementwiseId op, KsGeometry geom, int instrumented,
                                           size_t shared, int *blocks);
cudaError_t ks_cuda_histogram_occupancy (KsHistogramMethod method, KsGeometry geom, int channels,
                                         int instrumented, size_t shared, int *blocks);

/* Reads bytes of buf (zeros: it is never written after it is cleared) so that
 * L2 holds only clean lines of it; sink is stored to only if buf is not zero.
 * ks-evict.cu says why. */
cudaError_t ks_cuda_evict_launch (const void *buf, size_t bytes, uint32_t *sink, int sm_count,
                                  cudaStream_t stream);

/* Lets kernel launch with `dynamic` bytes of dynamic shared memory, and the
 * runtime count its blocks for occupancy with them. Past 48 KiB with its
 * static shared memory a kernel must opt in (the runtime counts no block of
 * one that has not, and its launch fails); this sets the kernel's limit to
 * the most the device allows it. cudaErrorInvalidValue when static and
 * dynamic together are past the device's opt-in limit. Every launcher and
 * occupancy query of a kernel with dynamic shared memory calls it first. */
cudaError_t ks_cuda_allow_shared (const void *kernel, size_t dynamic);

/* Writes through an invalid address on purpose: an illegal-address fault, for
 * the tests that check the engine survives a sticky error. */
cudaError_t ks_cuda_debug_fault_launch (cudaStream_t stream);

KS_KERNEL_END_DECLS
