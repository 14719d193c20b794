module example.com/hello

go 1.22

require example.com/greet v0.0.0

require github.com/google/go-cmp v0.6.0 // indirect

// greet is a module of the tree's own, which no proxy serves.
replace example.com/greet => ./greet
