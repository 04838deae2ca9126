// The view's fragment shader: maps each framebuffer pixel to an image
// coordinate and draws, in this order, the background outside the image, a
// checkerboard behind transparent pixels, the input (left of the split line)
// or the output (right of it), the coverage hatch over pixels that no thread
// wrote or, instead, a teaching overlay (who wrote each pixel, and the
// launch's threads beyond the image), and the split line. The overlay's
// colours are those of gpu/engine/ks-overlay.c, which tests compare with these. The #version line and, for GLES, the default
// precision are prepended at run time, and on desktop OpenGL the define
// KS_BUFFER_TEXTURES, which lets the output come from a buffer texture.

uniform vec2 u_view_size;      // framebuffer pixels
uniform vec2 u_image_size;     // image pixels
uniform vec2 u_center;         // the image coordinate at the centre of the view
uniform float u_zoom;          // framebuffer pixels per image pixel
uniform float u_scale;         // framebuffer pixels per widget pixel
uniform float u_split_x;       // framebuffer x of the split line, from the left

uniform sampler2D u_input;
uniform sampler2D u_output;
uniform sampler2D u_coverage;  // R8: 1 = written, 0 = never written
uniform bool u_has_input;
uniform bool u_has_output;
uniform bool u_has_coverage;
uniform bool u_input_gray;     // R8 textures hold gray values: show them as gray
uniform bool u_output_gray;

#ifdef KS_BUFFER_TEXTURES
// The output in the op's own memory (CUDA–OpenGL shared memory): a buffer
// texture of rows u_output_row texels apart, filtered here as the 2-D
// texture would be (nearest past 1:1, else bilinear, edges clamped).
uniform samplerBuffer u_output_buffer;
uniform bool u_output_shared;
uniform int u_output_row;
uniform ivec2 u_output_size;   // the output's pixels (a resize makes it differ from the view's)
uniform bool u_nearest;
#endif

// The overlay: RG32UI, per image pixel the last writer's linear block, and
// its linear thread with the write count (saturated) in the high 16 bits.
uniform highp usampler2D u_owner;
uniform bool u_has_owner;
uniform int u_overlay;         // 0 none, 1 block, 2 thread, 3 warp, 4 coverage
uniform float u_opacity;
uniform ivec2 u_grid;          // gridDim.x, gridDim.y of the run
uniform ivec2 u_block;         // blockDim.x, blockDim.y
uniform vec2 u_extent;         // the launch's extent in image pixels
uniform bool u_block_lines;    // blocks are large enough on screen for lines
uniform vec3 u_palette[8];

out vec4 frag_color;

vec4
fetch (sampler2D tex, bool gray, vec2 uv)
{
  vec4 c = texture (tex, uv);

  return gray ? vec4 (c.rrr, 1.0) : c;
}

#ifdef KS_BUFFER_TEXTURES
vec4
shared_texel (ivec2 p)
{
  p = clamp (p, ivec2 (0), u_output_size - 1);
  return texelFetch (u_output_buffer, p.y * u_output_row + p.x);
}

vec4
fetch_shared (vec2 uv)
{
  vec2 t = uv * vec2 (u_output_size) - 0.5;
  vec4 c;

  if (u_nearest)
    {
      c = shared_texel (ivec2 (floor (uv * vec2 (u_output_size))));
    }
  else
    {
      ivec2 p = ivec2 (floor (t));
      vec2 f = t - floor (t);

      c = mix (mix (shared_texel (p), shared_texel (p + ivec2 (1, 0)), f.x),
               mix (shared_texel (p + ivec2 (0, 1)), shared_texel (p + ivec2 (1, 1)), f.x), f.y);
    }
  return u_output_gray ? vec4 (c.rrr, 1.0) : c;
}
#endif

vec4
fetch_output (vec2 uv)
{
#ifdef KS_BUFFER_TEXTURES
  if (u_output_shared)
    return fetch_shared (uv);
#endif
  return fetch (u_output, u_output_gray, uv);
}

const vec3 NEVER = vec3 (1.0, 0.0, 1.0);
const vec3 ONCE = vec3 (64.0, 192.0, 64.0) / 255.0;
const vec3 TWICE = vec3 (255.0, 32.0, 32.0) / 255.0;
const vec3 IDLE = vec3 (80.0, 120.0, 160.0) / 255.0;
const vec3 LINE = vec3 (26.0) / 255.0;

uvec2
owner_at (ivec2 p)
{
  return texelFetch (u_owner, p, 0).rg;
}

// A region per block; every unwritten pixel belongs to none.
uint
region (uvec2 o)
{
  return (o.y >> 16u) == 0u ? 0xffffffffu : o.x;
}

vec3
overlay_color (uvec2 o)
{
  uint writes = o.y >> 16u;
  uint t = o.y & 0xffffu;

  if (writes == 0u)
    return NEVER;
  if (u_overlay == 1)
    {
      uint bx = o.x % uint (u_grid.x);
      uint by = (o.x / uint (u_grid.x)) % uint (u_grid.y);

      return u_palette[int ((bx + 3u * by) % 8u)];
    }
  if (u_overlay == 2)
    {
      uint tx = t % uint (u_block.x);
      uint ty = (t / uint (u_block.x)) % uint (u_block.y);
      float r = u_block.x > 1 ? float (tx) / float (u_block.x - 1) : 0.0;
      float g = u_block.y > 1 ? float (ty) / float (u_block.y - 1) : 0.0;

      return vec3 (r, g, 64.0 / 255.0);
    }
  if (u_overlay == 3)
    return u_palette[int ((t / 32u) % 8u)] * (0.45 + 0.55 * float (t % 32u) / 31.0);
  return writes == 1u ? ONCE : TWICE;
}

void
main ()
{
  // Top-left origin, like the image rows.
  vec2 frag = vec2 (gl_FragCoord.x, u_view_size.y - gl_FragCoord.y);
  vec2 pos = u_center + (frag - 0.5 * u_view_size) / u_zoom;
  vec2 uv = pos / u_image_size;
  bool left = frag.x < u_split_x;
  vec3 color;

  if (!u_has_input && !u_has_output)
    {
      frag_color = vec4 (0.16, 0.16, 0.17, 1.0);
      return;
    }

  if (uv.x < 0.0 || uv.y < 0.0 || uv.x >= 1.0 || uv.y >= 1.0)
    {
      color = vec3 (0.16, 0.16, 0.17);
      // Threads of the launch that fell outside the image: its extent beyond
      // the edge, striped, so that an oversized grid shows as well as a short one.
      if (u_overlay != 0 && u_has_owner && u_has_output && !left && pos.x >= 0.0
          && pos.y >= 0.0 && pos.x < u_extent.x && pos.y < u_extent.y)
        {
          float band = mod (floor ((frag.x - frag.y) / (6.0 * u_scale)), 2.0);

          color = band < 1.0 ? IDLE : mix (color, IDLE, 0.35);
        }
    }
  else
    {
      // Checkerboard in widget pixels, so it stays the same size at every zoom.
      vec2 cell = floor (frag / (8.0 * u_scale));
      float check = mod (cell.x + cell.y, 2.0) < 1.0 ? 0.80 : 0.60;
      bool show_output = u_has_output && (!left || !u_has_input);
      vec4 c = show_output ? fetch_output (uv) : fetch (u_input, u_input_gray, uv);

      color = mix (vec3 (check), c.rgb, c.a);

      if (show_output && u_overlay != 0 && u_has_owner)
        {
          ivec2 p = ivec2 (floor (pos));
          uvec2 o = owner_at (p);
          // One widget pixel to the left and above, in image pixels: the
          // block grid's lines are one widget pixel wide at every zoom.
          float step = u_scale / u_zoom;
          ivec2 pl = ivec2 (floor (pos - vec2 (step, 0.0)));
          ivec2 pu = ivec2 (floor (pos - vec2 (0.0, step)));
          bool line = u_overlay == 1 && u_block_lines
                      && ((pl.x >= 0 && pl.x != p.x && region (owner_at (pl)) != region (o))
                          || (pu.y >= 0 && pu.y != p.y && region (owner_at (pu)) != region (o)));

          color = line ? LINE : mix (color, overlay_color (o), u_opacity);
        }
      else if (show_output && u_has_coverage && texture (u_coverage, uv).r < 0.5)
        {
          // Diagonal magenta stripes in widget pixels: unwritten pixels stay
          // recognisable at any zoom and whatever garbage the buffer held.
          float band = mod (floor ((frag.x + frag.y) / (4.0 * u_scale)), 2.0);

          color = band < 1.0 ? vec3 (1.0, 0.0, 1.0) : color * 0.5;
        }
    }

  if (u_has_output && u_has_input && u_split_x > 0.0 && abs (frag.x - u_split_x) < u_scale)
    color = vec3 (1.0);

  frag_color = vec4 (color, 1.0);
}
