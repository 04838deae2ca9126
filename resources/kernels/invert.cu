// Invert: the tutorial's first kernel as an expression. These statements run
// once per pixel; `in` is the input pixel and `out` the result, which starts
// as a copy of `in`. Alpha stays as it is.
out.x = 255 - in.x;
out.y = 255 - in.y;
out.z = 255 - in.z;
