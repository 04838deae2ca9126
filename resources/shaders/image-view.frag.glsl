// The view's fragment shader: maps each framebuffer pixel to an image
// coordinate and draws, in this order, the background outside the image, a
// checkerboard behind transparent pixels, the input (left of the split line)
// or the output (right of it), the coverage hatch over pixels that no thread
// wrote, and the split line. The #version line and, for GLES, the default
// precision are prepended at run time.

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

out vec4 frag_color;

vec4
fetch (sampler2D tex, bool gray, vec2 uv)
{
  vec4 c = texture (tex, uv);

  return gray ? vec4 (c.rrr, 1.0) : c;
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
    }
  else
    {
      // Checkerboard in widget pixels, so it stays the same size at every zoom.
      vec2 cell = floor (frag / (8.0 * u_scale));
      float check = mod (cell.x + cell.y, 2.0) < 1.0 ? 0.80 : 0.60;
      bool show_output = u_has_output && (!left || !u_has_input);
      vec4 c = show_output ? fetch (u_output, u_output_gray, uv)
                           : fetch (u_input, u_input_gray, uv);

      color = mix (vec3 (check), c.rgb, c.a);

      if (show_output && u_has_coverage && texture (u_coverage, uv).r < 0.5)
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
