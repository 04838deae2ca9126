// The view's vertex shader: one triangle that covers the whole viewport,
// generated from gl_VertexID so that no vertex buffer is needed. The #version
// line (GLSL 1.50 for OpenGL 3.2 core, GLSL ES 3.00 for GLES 3) is prepended
// at run time, depending on the API GTK chose for the context.

void
main ()
{
  vec2 corner = vec2 (float ((gl_VertexID << 1) & 2), float (gl_VertexID & 2));

  gl_Position = vec4 (corner * 2.0 - 1.0, 0.0, 1.0);
}
