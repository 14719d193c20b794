module github.com/gobuffalo/flect

go 1.16

exclude github.com/stretchr/testify v1.7.1

require (
	github.com/gobuffalo/segments v0.1.0
	github.com/stretchr/testify v1.8.1
)

retract [v1.0.0, v1.0.1]
