module example.com/humaneval/sum_product

go 1.22
