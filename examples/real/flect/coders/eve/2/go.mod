module github.com/gobuffalo/flect

go 1.16

exclude github.com/stretchr/testify v1.7.1

require (
	github.com/stretchr/testify v1.8.1
	golang.org/x/text v0.14.0
)

retract [v1.0.0, v1.0.1]
